/* The scenario loader's sections (config/scenario.c calls them in the order their keys
 * appear in the resolved JSON, which is part of the config hash): each reads one top-level
 * object of the scenario, validates it with the JSON path in every message, fills scn_t and
 * writes its resolved form.  Private to config/.
 *
 *   scenario_sections.c  cluster, data, batch, optimizer, compute and io (timing), stop and
 *                        eval (run control), topology and network, numerics
 *   scenario_model.c     model: the common keys, each kind's own through its table
 *                        (models/model_kind.h), and cost-only presets
 *   scenario_clients.c   data.partition and clients (federated learning) */
#ifndef SGDSIM_CONFIG_SCENARIO_SECTIONS_H
#define SGDSIM_CONFIG_SCENARIO_SECTIONS_H

#include "common/error.h"
#include "common/json.h"
#include "config/scenario.h"

int scn_parse_cluster(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
/* Relative data paths are resolved against base_dir (the scenario file's folder). */
int scn_parse_data(const sgd_jobj_t *root, const char *base_dir, scn_t *s, sgd_err_t *err);
int scn_parse_model(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
int scn_parse_batch(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
int scn_parse_optimizer(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
int scn_parse_timing(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
int scn_parse_run_control(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
int scn_parse_topology(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
int scn_parse_numerics(const sgd_jobj_t *root, scn_t *s, sgd_err_t *err);
/* data.partition, read by scn_parse_data from the data object. */
int scn_parse_partition(const sgd_jobj_t *data, scn_t *s, sgd_err_t *err);
/* After the network section (the bandwidth's default is its). */
int scn_parse_clients(const sgd_jobj_t *root, const char *base_dir, scn_t *s, sgd_err_t *err);

/* A path of the scenario resolved against base_dir (the scenario file's folder) unless it is
 * absolute; owned by the caller. */
char *scn_resolve_path(const char *base_dir, const char *p);

#endif

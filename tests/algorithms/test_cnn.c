/* Convolutional networks in scenarios and algorithms: model.kind "cnn" -- its bad input
 * refused with the JSON path of the layer (at load time when the input's shape is known, at
 * run setup for IDX images, before the model is allocated); "lenet5" the same configuration
 * as its list written out; CSGD with P workers x b rows bit for bit 1 worker x P*b; LSGD the
 * same parameters as CSGD (a small network and LeNet-5); the hybrid mode training a CNN while charging ResNet-50's time;
 * compute.kind "flops" charging the layers' FLOPs. */
#include <stdlib.h>
#include <unistd.h>

#include "algorithms/alg.h"
#include "models/preset.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

static const char *base =
    "{\"schema_version\": 1, \"seed\": 5, \"algorithm\": {\"name\": \"csgd\"},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 400, \"n_validation\": 64,"
    "           \"dim\": 72, \"classes\": 3, \"separation\": 0.3},"
    " \"model\": {\"kind\": \"cnn\", \"input\": {\"height\": 6, \"width\": 6, \"channels\": 2},"
    "           \"layers\": [{\"conv\": {\"out\": 4, \"k\": 3, \"pad\": 1}}, {\"pool\": {\"max\": 2}},"
    "                      {\"conv\": {\"out\": 5, \"k\": 2, \"stride\": 2}}, {\"fc\": 7}]},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": 0.01},"
    " \"stop\": {\"updates\": 30}, \"eval\": {\"every\": 10}}";

static alg_outcome_t run(const char *const *sets, int nsets)
{
    return run_scenario(base, "cnn.json", sets, nsets, NULL);
}

/* Loading with `set` fails with a message containing `needle`. */
static void load_fails(const char *set, const char *needle)
{
    scn_override_t ov = {set};
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(base, "cnn.json", ".", &ov, 1, NULL, alg_scenario_table, &s, &err),
                 -1);
    CHECK_STR_CONTAINS(err.msg, needle);
}

static void bad_input_names_the_layer(void)
{
    load_fails("model.layers=[{\"conv\":{\"out\":4,\"k\":7}}]",
               "model.layers[0].conv.k: a 7 x 7 kernel does not fit the 6 x 6 input (pad 0)");
    load_fails("model.layers=[{\"conv\":{\"out\":4,\"k\":0}}]",
               "model.layers[0].conv.k: expected integer >= 1, got 0");
    load_fails("model.layers=[{\"fc\":3},{\"conv\":{\"out\":4,\"k\":3,\"stride\":0}}]",
               "model.layers[1].conv.stride: expected integer >= 1, got 0");
    load_fails("model.layers=[{\"dense\":3}]",
               "model.layers[0].dense: unknown layer type (known: conv, pool, fc");
    load_fails("model.layers=[{\"pool\":{\"max\":2}}]",
               "model.layers: needs at least one conv or fc layer");
    load_fails("model.layers=[{\"pool\":{\"max\":2,\"avg\":2}},{\"fc\":3}]",
               "model.layers[0].pool: expected exactly one of \"max\" and \"avg\"");
    load_fails("model.layers=[{\"fc\":0}]", "model.layers[0].fc: expected integer >= 1");
    load_fails("model.layers=[{\"fc\":2147483647}]",
               "model.layers[0].fc: 72 x 2147483647 weights");
    load_fails("model.layers=[]", "model.layers: expected an array of 1..15 layers");
    load_fails("model.layers=\"lenet7\"", "model.layers: unknown network \"lenet7\"");
    load_fails("model.hidden=[10]",
               "model.hidden: not valid with kind \"cnn\" (only with kind \"softmax\" or "
               "\"mlp\")");
    load_fails("model.input={\"height\":6,\"width\":6}",
               "model.input: 6 x 6 x 1 values per sample, data.dim is 72");
    load_fails("model.input=[6,6,2]", "model.input: expected an object, got an array");
    /* synthetic data without model.input is 1 x 1 x dim: LeNet-5's padded first kernel
     * fits (one output), its first pool does not */
    scn_override_t ov[2] = {{"model={\"kind\":\"cnn\",\"layers\":\"lenet5\"}"}, {"data.dim=784"}};
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(base, "cnn.json", ".", ov, 2, NULL, alg_scenario_table, &s, &err),
                 -1);
    CHECK_STR_CONTAINS(err.msg, "model.layers[1].pool.max: a 2 x 2 window does not fit the 1 x 1 "
                                "input");
    scn_override_t mlp = {"model={\"kind\":\"mlp\",\"layers\":\"lenet5\"}"};
    CHECK_INT_EQ(scn_load_text(base, "cnn.json", ".", &mlp, 1, NULL, alg_scenario_table, &s,
                               &err), -1);
    CHECK_STR_CONTAINS(err.msg,
                       "model.layers: not valid with kind \"mlp\" (only with kind \"cnn\")");
}

/* "lenet5" resolves to its list with every default: the same configuration and hash. */
static void lenet5_is_its_list(void)
{
    const char *named = "model={\"kind\":\"cnn\",\"layers\":\"lenet5\",\"input\":"
                        "{\"height\":28,\"width\":28}}";
    const char *listed =
        "model={\"kind\":\"cnn\",\"input\":{\"height\":28,\"width\":28},\"layers\":["
        "{\"conv\":{\"out\":6,\"k\":5,\"pad\":2}},{\"pool\":{\"max\":2,\"stride\":2}},"
        "{\"conv\":{\"k\":5,\"out\":16,\"stride\":1}},{\"pool\":{\"max\":2}},{\"fc\":120},"
        "{\"fc\":84}]}";
    scn_override_t a[2] = {{named}, {"data.dim=784"}}, b[2] = {{listed}, {"data.dim=784"}};
    scn_t sa, sb;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(base, "cnn.json", ".", a, 2, NULL, alg_scenario_table, &sa, &err), 0);
    CHECK_INT_EQ(scn_load_text(base, "cnn.json", ".", b, 2, NULL, alg_scenario_table, &sb, &err), 0);
    CHECK_STR_EQ(sa.config_hash, sb.config_hash);
    CHECK_STR_CONTAINS(sa.resolved_json, "{\"pool\":{\"max\":2,\"stride\":2}}");
    CHECK_INT_EQ(sa.model.cnn.nlayers, 6);
    CHECK_INT_EQ(sa.model.cnn.layer[2].out, 16);
    scn_free(&sa);
    scn_free(&sb);
}

static void csgd_stacks_bit_for_bit_and_lsgd_matches(void)
{
    const char *a_sets[] = {"cluster.workers=4", "batch.per_worker=6"};
    const char *b_sets[] = {"cluster.workers=1", "batch.per_worker=24"};
    const char *l_sets[] = {"cluster.workers=4", "batch.per_worker=6", "algorithm.name=lsgd",
                            "topology={\"kind\":\"cluster\",\"gpus_per_node\":2}"};
    alg_outcome_t a = run(a_sets, 2), b = run(b_sets, 2), l = run(l_sets, 4);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    CHECK_INT_EQ(a.updates, 30);
    CHECK(same_params(&a, &b));
    CHECK(same_params(&a, &l));
    CHECK(a.vtime_ns != b.vtime_ns);
    free(a.final_params), free(b.final_params), free(l.final_params);
}

/* The same on LeNet-5 itself (28 x 28 synthetic images; every layer kind the experiments
 * of docs/reproductions.md use): LSGD's parameters are CSGD's, bit for bit. */
static void lenet5_lsgd_matches_csgd(void)
{
    const char *model = "model={\"kind\":\"cnn\",\"layers\":\"lenet5\",\"input\":"
                        "{\"height\":28,\"width\":28}}";
    const char *c_sets[] = {model, "data.dim=784", "cluster.workers=4", "batch.per_worker=4",
                            "stop.updates=6", "eval.every=3"};
    const char *l_sets[] = {model, "data.dim=784", "cluster.workers=4", "batch.per_worker=4",
                            "stop.updates=6", "eval.every=3", "algorithm.name=lsgd",
                            "topology={\"kind\":\"cluster\",\"gpus_per_node\":2}"};
    alg_outcome_t c = run(c_sets, 6), l = run(l_sets, 8);
    CHECK_INT_EQ(c.status, ALG_COMPLETE);
    CHECK_INT_EQ(l.updates, 6);
    CHECK(same_params(&c, &l));
    CHECK(c.vtime_ns != l.vtime_ns);
    free(c.final_params), free(l.final_params);
}

/* LSGD trains the CNN while charging ResNet-50's time: the CNN's numbers, ResNet-50's clock
 * (the same as an MLP's under the same preset). */
static void hybrid_trains_a_cnn_on_resnet50_time(void)
{
    const char *flops = "compute={\"kind\":\"flops\",\"device_gflops\":9000}";
    const char *topo = "topology={\"kind\":\"cluster\",\"gpus_per_node\":2}";
    const char *cnn_h[] = {"algorithm.name=lsgd", "cluster.workers=4", "batch.per_worker=6",
                           topo, flops, "model.cost_preset=resnet50"};
    const char *mlp_h[] = {"algorithm.name=lsgd", "cluster.workers=4", "batch.per_worker=6",
                           topo, flops,
                           "model={\"kind\":\"mlp\",\"hidden\":[8],\"cost_preset\":\"resnet50\"}"};
    alg_outcome_t h = run(cnn_h, 6), r = run(cnn_h, 5), m = run(mlp_h, 6);
    CHECK(same_params(&h, &r));
    CHECK_INT_EQ(h.vtime_ns, m.vtime_ns);
    CHECK(h.vtime_ns > 10 * r.vtime_ns);
    free(h.final_params), free(r.final_params), free(m.final_params);
}

/* One worker, no I/O: every update costs per_worker x the layers' FLOPs at device_gflops. */
static void flops_are_charged_from_the_layers(void)
{
    const char *sets[] = {"cluster.workers=1", "batch.per_worker=8",
                          "compute={\"kind\":\"flops\",\"device_gflops\":0.5}"};
    alg_outcome_t o = run(sets, 3);
    /* conv 6x6x(3*3*2)x4, conv 3x3... : from the shapes, MACs per sample:
     *   conv1 36 * 18 * 4 = 2592; pool 6x6 -> 3x3; conv2 (3-2)/2+1 = 1: 1 * 16 * 5 = 80;
     *   fc 5 -> 7: 35; output 7 -> 3: 21.  FLOPs = 4 * all + 2 * all but conv1. */
    double f = 4.0 * (2592 + 80 + 35 + 21) + 2.0 * (80 + 35 + 21);
    CHECK_NEAR((double)o.vtime_ns, 30 * f * 8 / 0.5e9 * 1e9, 30.0);
    free(o.final_params);
}

/* A tiny IDX image set, n images of side x side with labels n % 3: the run takes the shape
 * from the data, and a layer that does not fit it fails at setup naming the layer. */
static void write_idx(const char *path, const unsigned char *hdr, size_t nh, size_t n)
{
    FILE *f = fopen(path, "wb");
    SGD_ASSERT(f);
    fwrite(hdr, 1, nh, f);
    for (size_t i = 0; i < n; i++) fputc((int)((i * 37) % 251 % 3), f);
    fclose(f);
}

static void idx_images_give_the_shape(void)
{
    char dir[] = "/tmp/sgd_cnn_XXXXXX";
    SGD_ASSERT(mkdtemp(dir));
    char img[64], lab[64];
    snprintf(img, sizeof img, "%s/img.idx", dir);
    snprintf(lab, sizeof lab, "%s/lab.idx", dir);
    const unsigned char hi[] = {0, 0, 8, 3, 0, 0, 0, 60, 0, 0, 0, 9, 0, 0, 0, 9};
    const unsigned char hl[] = {0, 0, 8, 1, 0, 0, 0, 60};
    write_idx(img, hi, sizeof hi, 60 * 81);
    write_idx(lab, hl, sizeof hl, 60);
    char data[256];
    snprintf(data, sizeof data, "data={\"source\":\"idx\",\"train_images\":\"%s\",\"train_labels\":"
                                "\"%s\",\"validation\":\"train_tail\",\"validation_size\":10}",
             img, lab);
    const char *ok[] = {data, "model={\"kind\":\"cnn\",\"layers\":[{\"conv\":{\"out\":2,\"k\":3}},"
                              "{\"pool\":{\"avg\":7}}]}", "batch.per_worker=5"};
    alg_outcome_t o = run(ok, 3);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK_INT_EQ(o.nparams, 3 * 3 * 2 + 2 + 2 * 3 + 3); /* 9 x 9 x 1 inferred */
    free(o.final_params);
    const char *bad[] = {data, "model={\"kind\":\"cnn\",\"layers\":[{\"conv\":{\"out\":2,\"k\":3}},"
                               "{\"pool\":{\"avg\":8}}]}"};
    scn_override_t ov[2] = {{bad[0]}, {bad[1]}};
    scn_t s;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(scn_load_text(base, "cnn.json", ".", ov, 2, NULL, alg_scenario_table, &s, &err), 0);
    alg_outcome_t f;
    CHECK_INT_EQ(alg_run(&s, NULL, &f, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "model.layers[1].pool.avg: a 8 x 8 window does not fit the 7 x 7 "
                                "input");
    scn_free(&s);
    unlink(img), unlink(lab), rmdir(dir);
}

int main(void)
{
    bad_input_names_the_layer();
    lenet5_is_its_list();
    csgd_stacks_bit_for_bit_and_lsgd_matches();
    lenet5_lsgd_matches_csgd();
    hybrid_trains_a_cnn_on_resnet50_time();
    flops_are_charged_from_the_layers();
    idx_images_give_the_shape();
    return check_exit();
}

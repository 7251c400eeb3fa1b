/* Hardsync (synchronous SGD through the parameter server): the server waits for every
 * client's gradient on one version and applies their mean -- with lambda x mu rows, bit for
 * bit minibatch SGD over the stacked minibatch (ps_step.c). */
#include "algorithms/rules/scaled.h"

PS_RULE_PARSER(hardsync_options, ps_rule_hardsync)
const ps_rule_t ps_rule_hardsync = {
    .ops = PS_RULE_OPS("hardsync", hardsync_options),
    .protocol = PS_PROTO_HARDSYNC,
    .merge = true,
    PS_SCALED_ARITHMETIC,
};

/* The parameter server's snapshots (algorithms/ps_server.h): sharing per version, recycling,
 * and the deferred-numerics contract -- a snapshot taken while the parameters lag behind the
 * schedule holds the parameters of its own version once they get there, pins keep a buffer
 * without counting it as live, and live/peak counts do not depend on the lag; a dead
 * snapshot's slab block is reused by the next one. */
#include <stdint.h>
#include <stdlib.h>

#include "algorithms/ps_server.h"
#include "tests/check.h"

#define NP 4

static void set_params(float *params, float v)
{
    for (int i = 0; i < NP; i++) params[i] = v + (float)i;
}

/* A server over params = {v, v + 1, ...}, at version 0. */
static void start(ps_server_t *s, float *params, float v)
{
    set_params(params, v);
    ps_server_init(s, params, NP);
}

static void snapshots_are_shared_per_version_and_copied_at_once_without_lag(void)
{
    float params[NP];
    ps_server_t s;
    start(&s, params, 10);
    ps_snap_t *a = ps_server_snapshot(&s), *b = ps_server_snapshot(&s);
    CHECK(a == b);
    CHECK_INT_EQ(a->refs, 2);
    CHECK_INT_EQ(a->pins, 0);
    CHECK(a->data[3] == 13.0f);
    set_params(params, 20); /* the next update */
    ps_server_bump(&s);
    ps_server_applied(&s);
    ps_snap_t *c = ps_server_snapshot(&s);
    CHECK(c != a);
    CHECK_INT_EQ(c->version, 1);
    CHECK(c->data[0] == 20.0f && a->data[0] == 10.0f);
    CHECK_INT_EQ(s.live, 2);
    ps_snap_release(&s, a);
    ps_snap_release(&s, b);
    CHECK_INT_EQ(s.live, 1);
    ps_snap_release(&s, c);
    ps_server_free(&s);
}

static void lagging_snapshots_are_filled_when_the_parameters_reach_their_version(void)
{
    float params[NP];
    ps_server_t s;
    start(&s, params, 0);
    /* The schedule makes two updates and fetches after each, the arithmetic not yet done. */
    ps_server_bump(&s);
    ps_snap_t *v1 = ps_server_snapshot(&s);
    ps_server_bump(&s);
    ps_snap_t *v2 = ps_server_snapshot(&s);
    CHECK_INT_EQ(v1->pins, 1);
    CHECK_INT_EQ(v2->pins, 1);
    CHECK_INT_EQ(s.live, 2);
    /* A holder leaves v1 before it is filled while the ledger still needs it (a pin). */
    ps_snap_pin(v1);
    ps_snap_release(&s, v1);
    CHECK_INT_EQ(s.live, 1);   /* no holder: not live, whatever the lag */
    CHECK(v1->dead);
    set_params(params, 100);   /* update 1 applied */
    ps_server_applied(&s);
    CHECK(v1->data[0] == 100.0f); /* filled: the pinned gradient will read it */
    CHECK_INT_EQ(v1->pins, 1);
    CHECK_INT_EQ(v2->pins, 1);
    set_params(params, 200);   /* update 2 applied */
    ps_server_applied(&s);
    CHECK(v2->data[1] == 201.0f);
    CHECK_INT_EQ(v2->pins, 0);
    CHECK_INT_EQ(s.nunfilled, 0);
    ps_snap_unpin(&s, v1);     /* the gradient was evaluated: the buffer is recycled */
    CHECK_INT_EQ(s.snaps.nfree, 1);
    CHECK_INT_EQ(s.peak_live, 2);
    ps_snap_release(&s, v2);
    ps_server_free(&s);
}

static void a_snapshot_nobody_holds_is_recycled_at_its_fill(void)
{
    float params[NP];
    ps_server_t s;
    start(&s, params, 0);
    ps_server_bump(&s);
    ps_snap_t *v1 = ps_server_snapshot(&s);
    ps_snap_release(&s, v1);   /* still current: cached at zero references */
    CHECK_INT_EQ(s.live, 1);
    ps_server_bump(&s);        /* moved on: dies, but its fill is pending */
    CHECK_INT_EQ(s.live, 0);
    CHECK_INT_EQ(s.snaps.nfree, 0);
    ps_server_applied(&s);     /* version 1 reached: not copied, recycled */
    CHECK_INT_EQ(s.snaps.nfree, 1);
    ps_server_applied(&s);
    CHECK_INT_EQ(s.applied, 2);
    ps_server_free(&s);
}

static void a_dead_snapshots_block_is_the_next_snapshots(void)
{
    float params[NP];
    ps_server_t s;
    start(&s, params, 0);
    ps_snap_t *v0 = ps_server_snapshot(&s);
    CHECK_INT_EQ((uintptr_t)v0->data % 64, 0);
    CHECK((unsigned char *)v0->data >= (unsigned char *)(v0 + 1)); /* header before data */
    ps_server_bump(&s);
    ps_server_applied(&s);
    ps_snap_release(&s, v0); /* moved on and no holder: dead, its block free */
    CHECK_INT_EQ(s.snaps.nfree, 1);
    set_params(params, 7);
    ps_snap_t *v1 = ps_server_snapshot(&s);
    CHECK(v1 == v0);          /* the same block, ... */
    CHECK_INT_EQ(v1->version, 1);
    CHECK_INT_EQ(v1->refs, 1); /* ... a new snapshot in it */
    CHECK(v1->data[2] == 9.0f);
    CHECK_INT_EQ(s.snaps.carved, 1);
    ps_snap_release(&s, v1);
    ps_server_free(&s);
    CHECK_INT_EQ(s.snaps.nchunks, 0); /* everything released */
}

int main(void)
{
    snapshots_are_shared_per_version_and_copied_at_once_without_lag();
    lagging_snapshots_are_filled_when_the_parameters_reach_their_version();
    a_snapshot_nobody_holds_is_recycled_at_its_fill();
    a_dead_snapshots_block_is_the_next_snapshots();
    return check_exit();
}

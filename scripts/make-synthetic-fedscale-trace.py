#!/usr/bin/env python3
"""Writes a small synthetic device-capacity file and availability trace in FedScale's format.

FedScale's files (benchmark/dataset/data/device_info/ of its repository) are Python pickles
of a dict keyed by an int client id:

    client_device_capacity  {id: {'computation': float, 'communication': float}}
    client_behave_trace     {id: {'duration': int, 'inactive': [int], 'finish_time': int,
                                  'active': [int], 'model': str}}

This script writes the same shapes with made-up values, for sgdsim's tests
(tests/data/fedscale/, read by tests/sim/test_sim_fedscale_reads_traces_and_refuses_bad_ones.c).
The first entries of each file are hand-written cases the tests check value by value; the
rest come from a seeded generator, so the output is the same bytes at every run:

    scripts/make-synthetic-fedscale-trace.py tests/data/fedscale

writes client_device_capacity and client_behave_trace with pickle protocol 4 (the default
of Python 3.8 and later) and the same objects with protocol 2 as *.p2.
"""
import os
import pickle
import random
import sys

FINISH = 518400  # 6 days in seconds


def capacity():
    caps = {
        # The hand-written cases (tests check them): a float and an int in each field.
        1: {'computation': 162.0, 'communication': 5648.109619499134},
        2: {'computation': 20, 'communication': 1000},
        3: {'computation': 400.5, 'communication': 250.25},
    }
    rng = random.Random(20240101)
    for cid in range(4, 41):
        caps[cid] = {'computation': round(rng.uniform(5.0, 500.0), 1),
                     'communication': rng.uniform(100.0, 50000.0)}
    return caps


def windows(rng):
    """Sorted, disjoint [active, inactive] windows inside [0, FINISH]."""
    cuts = sorted(rng.sample(range(1, FINISH), 2 * rng.randint(1, 8)))
    return cuts[0::2], cuts[1::2]


def trace():
    tr = {
        # Hand-written cases (tests check them).
        # 101: two windows; t mod FINISH in [100, 200] or [1000, 5000] is online.
        101: {'duration': 4100, 'inactive': [200, 5000], 'finish_time': FINISH,
              'active': [100, 1000], 'model': 'CPH1801'},
        # 102: windows touching at 300 (merged), an empty one at 700, and one ending at
        # FINISH joined to one starting at 0 across the period's end.
        102: {'duration': 0, 'inactive': [50, 300, 600, 700, FINISH],
              'finish_time': FINISH, 'active': [0, 200, 300, 700, 518000], 'model': 'x'},
        # 103: never online.
        103: {'duration': 0, 'inactive': [], 'finish_time': FINISH, 'active': [],
              'model': 'y'},
        # 104: always online (one window over the whole period), a short period.
        104: {'duration': 3600, 'inactive': [3600], 'finish_time': 3600, 'active': [0],
              'model': 'z'},
    }
    rng = random.Random(20240102)
    for cid in range(105, 125):
        active, inactive = windows(rng)
        tr[cid] = {'duration': sum(b - a for a, b in zip(active, inactive)),
                   'inactive': inactive, 'finish_time': FINISH, 'active': active,
                   'model': 'SM-G%03d' % rng.randint(0, 999)}
    return tr


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, obj in (('client_device_capacity', capacity()), ('client_behave_trace', trace())):
        for suffix, protocol in (('', 4), ('.p2', 2)):
            with open(os.path.join(out, name + suffix), 'wb') as f:
                pickle.dump(obj, f, protocol=protocol)


if __name__ == '__main__':
    main()

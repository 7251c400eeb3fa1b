"""The three classes an FLGo benchmark provides (TaskGenerator, TaskPipe, TaskCalculator),
built on FLGo's generic image-classification pipe, with the data read from IDX files once
per process (see __init__.py)."""
import gzip
import os

import numpy as np
import torch
from flgo.benchmark.toolkits.cv.classification import (FromDatasetGenerator, FromDatasetPipe,
                                                       GeneralCalculator)

_CACHE = {}


def read_idx(path):
    """An IDX file (gzip) as a numpy array of its declared shape (uint8 data only)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError("%s: not an IDX file of unsigned bytes" % path)
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise ValueError("%s: %d bytes of data, the header says %s" % (path, body.size, dims))
    return body.reshape(dims)


def load_split(split):
    """('train' or 't10k') -> TensorDataset of float images in [0, 1] (N x 1 x 28 x 28) and
    int64 labels, from $FL_PEER_DATA."""
    if split in _CACHE:
        return _CACHE[split]
    root = os.environ.get("FL_PEER_DATA")
    if not root:
        raise RuntimeError("FL_PEER_DATA is not set: the directory of the IDX .gz files")
    images = read_idx(os.path.join(root, "%s-images-idx3-ubyte.gz" % split))
    labels = read_idx(os.path.join(root, "%s-labels-idx1-ubyte.gz" % split))
    if images.shape[0] != labels.shape[0]:
        raise ValueError("%s: %d images but %d labels" % (root, images.shape[0], labels.shape[0]))
    x = torch.from_numpy(images.astype(np.float32) / np.float32(255.0)).unsqueeze(1)
    y = torch.from_numpy(labels.astype(np.int64))
    _CACHE[split] = torch.utils.data.TensorDataset(x, y)
    return _CACHE[split]


def train_labels():
    """The training labels as a numpy array (for the partitioner)."""
    return load_split("train").tensors[1].numpy()


class TaskGenerator(FromDatasetGenerator):
    def __init__(self):
        super().__init__(benchmark="flgo_idx_bench", train_data=load_split("train"),
                         test_data=load_split("t10k"))


class TaskPipe(FromDatasetPipe):
    def __init__(self, task_path):
        super().__init__(task_path, train_data=load_split("train"), test_data=load_split("t10k"))


TaskCalculator = GeneralCalculator

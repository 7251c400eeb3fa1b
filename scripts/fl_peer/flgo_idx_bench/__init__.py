"""An FLGo benchmark over local IDX files (Fashion-MNIST or MNIST as .gz), for
scripts/fl-peer-compare.sh: FLGo's own fashion_classification benchmark downloads the data
through torchvision and normalises it; this one reads the files sgdsim reads, from the
directory in $FL_PEER_DATA, and scales pixels to [0, 1] as sgdsim does (x / 255, no
normalisation).  FLGo imports it by name (flgo.init reads the name from the task's info
file), so scripts/fl_peer must be on sys.path."""

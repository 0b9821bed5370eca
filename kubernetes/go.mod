// The files sidecar-kubelet adds to upstream's tree, each at its path there
// (see README.md). They build only inside upstream's tree, where make
// import-patches lays them; this go.mod keeps them out of the repository's
// own module.
module sidecar-kubelet.local/kubernetes-files

go 1.26.0

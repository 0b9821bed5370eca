// Package kindconfig holds the tests of the kind cluster configs in
// kind-config/ at the top of the repository: they decode them with kind's
// own config types, strictly, as `kind create cluster --config` does, and
// check the nodes, the node image and the kubelet's feature gate; and the
// list of kind's published node images that make kind-up's registry path
// pulls by digest (kind-config/published-node-images).
package kindconfig

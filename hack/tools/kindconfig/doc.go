// Package kindconfig holds the tests of the kind cluster configs in
// kind-config/ at the top of the repository: they decode them with kind's
// own config types, strictly, as `kind create cluster --config` does, and
// check the nodes, the node image and the kubelet's feature gate.
package kindconfig

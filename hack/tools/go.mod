// Tools for the local cluster (hack/cluster-up.sh), in a module of their own
// so that their dependencies stay out of the root go.mod.
module github.com/sidecar-kubelet/sidecar-kubelet/hack/tools

go 1.26.0

require (
	github.com/google/go-containerregistry v0.22.1
	google.golang.org/grpc v1.82.1
	k8s.io/cri-api v0.37.1
)

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260526163538-3dc84a4a5aaa // indirect
	google.golang.org/protobuf v1.36.12-0.20260120151049-f2248ac996af // indirect
)

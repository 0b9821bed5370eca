/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package podorder

import (
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The annotations that ask sidecar-kubelet for ordering. They are
// kubelet/sidecars' names, repeated here so that a suite importing this
// package does not build the kubelet's side (its metrics pull in
// component-base and Prometheus); a test checks that they agree.
const (
	// SidecarsAnnotation names the containers of spec.containers that are
	// sidecars, comma-separated, in their start order.
	SidecarsAnnotation = "sidecar-kubelet.io/sidecars"
	// WaitReadyAnnotation, "true", makes each native sidecar be ready, not
	// only started, before the next container starts.
	WaitReadyAnnotation = "sidecar-kubelet.io/wait-ready"
)

// DefaultImage is the test image, e2e/images/testserver (make images builds
// it into _output/images/testserver.tar).
const DefaultImage = "sidecar-kubelet.local/testserver:1"

// HoldFinalizer keeps a deleted pod's object, and so its final container
// statuses, until the test has read them: see Held. NewNamespace's cleanup
// removes it.
const HoldFinalizer = "e2e.sidecar-kubelet.io/hold"

// FirstPort is the port of a pod's first test server; each next container
// of the pod, init containers first, gets the next port unless Port says
// otherwise.
const FirstPort = 8080

// ContainerOption configures a container built by TestServer.
type ContainerOption func(*v1.Container)

// TestServer is a container of the test image: CompletePodSpec gives it the
// image, its NAME (the name in its log lines) and its PORT. Without options
// it serves until SIGTERM, then exits 0; Env configures it (see
// e2e/images/testserver: READY_AFTER, EXIT_AFTER, DRAIN, TERM_EXIT_CODE...).
func TestServer(name string, opts ...ContainerOption) v1.Container {
	c := v1.Container{Name: name}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Env sets environment variables, each given as "KEY=value".
func Env(kvs ...string) ContainerOption {
	return func(c *v1.Container) {
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			c.Env = append(c.Env, v1.EnvVar{Name: k, Value: v})
		}
	}
}

// Port fixes the test server's port, for a hook or a probe that calls it
// by number. CompletePodSpec gives the others FirstPort plus their index:
// choose ports apart from those.
func Port(p int) ContainerOption { return Env("PORT=" + strconv.Itoa(p)) }

// Readiness adds a readiness probe of /ready every second: a test server
// with it is ready once its READY_AFTER has passed.
func Readiness() ContainerOption {
	return func(c *v1.Container) { c.ReadinessProbe = HTTPProbe("/ready", 1) }
}

// ExecReadiness adds an exec readiness probe every second that asks the
// test server listening on port (see Port) for /ready: the probe's command
// (testserver wait-ready, a tenth of a second at most) succeeds once the
// server is ready.
func ExecReadiness(port int) ContainerOption {
	return func(c *v1.Container) {
		url := "http://127.0.0.1:" + strconv.Itoa(port) + "/ready"
		c.ReadinessProbe = &v1.Probe{
			ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"/testserver", "wait-ready", "--timeout", "100ms", "--out", "/dev/null", url}}},
			PeriodSeconds:    1,
			TimeoutSeconds:   1,
			SuccessThreshold: 1,
			FailureThreshold: 1,
		}
	}
}

// Liveness adds a liveness probe of /healthz every second, failing at once:
// UNHEALTHY_AFTER makes it fail.
func Liveness() ContainerOption {
	return func(c *v1.Container) { c.LivenessProbe = HTTPProbe("/healthz", 1) }
}

// StartupProbe adds a startup probe of path every second.
func StartupProbe(path string, failureThreshold int32) ContainerOption {
	return func(c *v1.Container) { c.StartupProbe = HTTPProbe(path, failureThreshold) }
}

// HTTPProbe probes path every second on the container's port (filled in by
// CompletePodSpec when left unset).
func HTTPProbe(path string, failureThreshold int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: path}},
		PeriodSeconds:    1,
		TimeoutSeconds:   1,
		SuccessThreshold: 1,
		FailureThreshold: failureThreshold,
	}
}

// PreStopHook adds an exec preStop hook of the test server that logs
// "prestop:hook-start", sleeps, and logs "prestop:hook-end" on the
// container's stdout; extra are more arguments of `testserver hook`, for
// example "--touch", "/shared/stop".
func PreStopHook(sleep string, extra ...string) ContainerOption {
	return PreStop(append([]string{"/testserver", "hook", "--name", "prestop", "--sleep", sleep}, extra...)...)
}

// PreStop adds an exec preStop hook running cmd.
func PreStop(cmd ...string) ContainerOption {
	return func(c *v1.Container) {
		if c.Lifecycle == nil {
			c.Lifecycle = &v1.Lifecycle{}
		}
		c.Lifecycle.PreStop = &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: cmd}}
	}
}

// PostStart adds an exec postStart hook running cmd.
func PostStart(cmd ...string) ContainerOption {
	return func(c *v1.Container) {
		if c.Lifecycle == nil {
			c.Lifecycle = &v1.Lifecycle{}
		}
		c.Lifecycle.PostStart = &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: cmd}}
	}
}

// Native makes an init container a native sidecar (restartPolicy Always).
func Native() ContainerOption {
	return func(c *v1.Container) { c.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways) }
}

// MountShared mounts the pod's emptyDir "shared" (SharedVolume) at /shared.
func MountShared() ContainerOption {
	return func(c *v1.Container) {
		c.VolumeMounts = append(c.VolumeMounts, v1.VolumeMount{Name: "shared", MountPath: "/shared"})
	}
}

// PodOption configures a pod built by NewPod.
type PodOption func(*v1.Pod)

// NewPod is a pod with restartPolicy Never, a grace period of 30 s and no
// service account token; opts configure it. Create it with
// Cluster.CreatePod, which completes its spec.
func NewPod(name string, opts ...PodOption) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
		Spec: v1.PodSpec{
			RestartPolicy:                 v1.RestartPolicyNever,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			AutomountServiceAccountToken:  ptr.To(false),
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Containers appends app containers, and the containers that
// AnnotatedSidecars names.
func Containers(cs ...v1.Container) PodOption {
	return func(p *v1.Pod) { p.Spec.Containers = append(p.Spec.Containers, cs...) }
}

// InitContainers appends init containers; Native makes one a native sidecar.
func InitContainers(cs ...v1.Container) PodOption {
	return func(p *v1.Pod) { p.Spec.InitContainers = append(p.Spec.InitContainers, cs...) }
}

// AnnotatedSidecars sets the sidecar-kubelet.io/sidecars annotation: the
// named containers are sidecars, started in this order and stopped in the
// reverse one.
func AnnotatedSidecars(names ...string) PodOption {
	return Annotation(SidecarsAnnotation, strings.Join(names, ","))
}

// WaitReady sets sidecar-kubelet.io/wait-ready: "true": each native sidecar
// must be ready, not only started, before the next container starts.
func WaitReady() PodOption { return Annotation(WaitReadyAnnotation, "true") }

// Annotation sets an annotation of the pod.
func Annotation(k, v string) PodOption {
	return func(p *v1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

// PodRestartPolicy sets the pod's restartPolicy.
func PodRestartPolicy(rp v1.RestartPolicy) PodOption {
	return func(p *v1.Pod) { p.Spec.RestartPolicy = rp }
}

// TerminationGracePeriod sets the pod's terminationGracePeriodSeconds.
func TerminationGracePeriod(seconds int64) PodOption {
	return func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To(seconds) }
}

// ActiveDeadline sets the pod's activeDeadlineSeconds.
func ActiveDeadline(seconds int64) PodOption {
	return func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To(seconds) }
}

// Held keeps the pod's object after its deletion until the cleanup of the
// namespace (NewNamespace), so that its final container statuses can be
// read (HoldFinalizer).
func Held() PodOption {
	return func(p *v1.Pod) { p.Finalizers = append(p.Finalizers, HoldFinalizer) }
}

// SharedVolume adds the emptyDir volume "shared" (see MountShared).
func SharedVolume() PodOption {
	return func(p *v1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: "shared", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})
	}
}

// CompletePodSpec pins the pod to the node (unless it names one) and fills
// in what every test server container, one whose image is empty, needs: the
// image, pulled IfNotPresent; NAME; PORT, FirstPort plus the container's
// index (init containers first) unless set; the port of its HTTP probes.
// Containers with an image of their own are left as they are.
func CompletePodSpec(spec *v1.PodSpec, node, image string) {
	if spec.NodeName == "" {
		spec.NodeName = node
	}
	fill := func(i int, c *v1.Container) {
		if c.Image != "" {
			return
		}
		c.Image = image
		c.ImagePullPolicy = v1.PullIfNotPresent
		p := FirstPort + i
		if v := envValue(c, "PORT"); v != "" {
			p, _ = strconv.Atoi(v)
		} else {
			c.Env = append(c.Env, v1.EnvVar{Name: "PORT", Value: strconv.Itoa(p)})
		}
		// A NAME of the test's own (a value, or one from the downward API).
		if !slices.ContainsFunc(c.Env, func(e v1.EnvVar) bool { return e.Name == "NAME" }) {
			c.Env = append(c.Env, v1.EnvVar{Name: "NAME", Value: c.Name})
		}
		for _, probe := range []*v1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
			if probe != nil && probe.HTTPGet != nil && probe.HTTPGet.Port.IntVal == 0 && probe.HTTPGet.Port.StrVal == "" {
				probe.HTTPGet.Port = intstr.FromInt32(int32(p))
			}
		}
	}
	for i := range spec.InitContainers {
		fill(i, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		fill(len(spec.InitContainers)+i, &spec.Containers[i])
	}
}

func envValue(c *v1.Container, key string) string {
	for _, e := range c.Env {
		if e.Name == key {
			return e.Value
		}
	}
	return ""
}

// TemplateFromPod is the pod as a template for a Job or another workload,
// its spec completed: its annotations (the sidecars) and its spec.
func TemplateFromPod(p *v1.Pod, node, image string) v1.PodTemplateSpec {
	spec := *p.Spec.DeepCopy()
	CompletePodSpec(&spec, node, image)
	return v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: p.Labels, Annotations: p.Annotations}, Spec: spec}
}

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

package measure

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const (
	image      = "sidecar-kubelet.local/testserver:1"
	appPort    = 8080
	doneFile   = "/shared/done"
	sidecarDly = "200ms" // sidecars turn ready this long after they start
	appDrain   = "300ms" // the app drains this long on SIGTERM
)

// jobRunTime is how long the Job app of the pod with this name runs before
// it exits 0: one second plus 0 to 999 ms, spread evenly by the pod's name.
// The kubelet sees an exit at its next relist (once a second), and what
// follows is paced by the relists after it. A fixed run time put every exit
// of a way at the same phase of that second, since the app starts in a sync
// that follows a relist or a probe: b came out in two clusters 1 s apart,
// one per way, as if the ways differed. Real apps exit at any phase.
func jobRunTime(podName string) time.Duration {
	h := fnv.New32a()
	h.Write([]byte(podName))
	return time.Second + time.Duration(h.Sum32()%1000)*time.Millisecond
}

func envs(kv ...string) []v1.EnvVar {
	var out []v1.EnvVar
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, v1.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

// httpProbe is a sidecar's probe of /ready. With period 10 every setting
// but the handler is left to the API server's defaults (periodSeconds 10,
// timeoutSeconds 1, successThreshold 1, failureThreshold 3).
func httpProbe(port int, period int32) *v1.Probe {
	p := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(int32(port))}}}
	if period != 10 {
		p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold = period, 1, 120
	}
	return p
}

// podFor builds the pod of a way: n sidecars sc1..scn (each a testserver
// ready 200 ms after it starts, on port 8081+i) and one app container
// "app", a service (runs until deleted, drains 300 ms on SIGTERM) or a Job
// app (exits 0 jobRunTime after it starts).
func podFor(w results.Way, kind string, n int, name string) *v1.Pod {
	period := w.Period
	if period == 0 {
		period = 1
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"bench.sidecar-kubelet.io": "true"}},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			RestartPolicy:                 v1.RestartPolicyAlways,
			EnableServiceLinks:            ptr.To(false),
			AutomountServiceAccountToken:  ptr.To(false),
		},
	}
	app := v1.Container{
		Name: "app", Image: image, ImagePullPolicy: v1.PullNever,
		Env: envs("NAME", "app", "PORT", strconv.Itoa(appPort), "DRAIN", appDrain),
	}
	if kind == results.KindStop {
		pod.Spec.RestartPolicy = v1.RestartPolicyNever
		n, w.Style = 0, "none"
	}
	if kind == results.KindJob {
		pod.Spec.RestartPolicy = v1.RestartPolicyNever
		app.Env = append(app.Env, envs("EXIT_AFTER", jobRunTime(name).String(), "EXIT_CODE", "0")...)
		if w.Style == "none" {
			n = 0 // a Job pod with plain extra containers would never finish
		}
	}
	var sidecars []v1.Container
	for i := 1; i <= n; i++ {
		port := 8080 + i
		sidecars = append(sidecars, v1.Container{
			Name: results.SidecarName(i), Image: image, ImagePullPolicy: v1.PullNever,
			Env: envs("NAME", results.SidecarName(i), "PORT", strconv.Itoa(port), "READY_AFTER", sidecarDly),
		})
	}
	names := make([]string, 0, n)
	for _, c := range sidecars {
		names = append(names, c.Name)
	}
	switch w.Style {
	case "annotated":
		pod.Annotations = map[string]string{"sidecar-kubelet.io/sidecars": strings.Join(names, ",")}
		for i := range sidecars {
			sidecars[i].ReadinessProbe = httpProbe(8081+i, period)
		}
		pod.Spec.Containers = append(sidecars, app)
	case "native-startup", "native-startup-ready", "native-wait-ready", "native-wait-startup":
		for i := range sidecars {
			sidecars[i].RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
			if w.Style != "native-wait-ready" {
				sidecars[i].StartupProbe = httpProbe(8081+i, period)
			}
			if w.Style == "native-startup-ready" || w.Style == "native-wait-ready" {
				sidecars[i].ReadinessProbe = httpProbe(8081+i, period)
			}
		}
		if (w.Style == "native-wait-ready" || w.Style == "native-wait-startup") && n > 0 {
			pod.Annotations = map[string]string{"sidecar-kubelet.io/wait-ready": "true"}
		}
		pod.Spec.InitContainers = sidecars
		pod.Spec.Containers = []v1.Container{app}
	case "poststart":
		// The classic workaround: the kubelet starts regular containers in
		// order and waits for each postStart hook, so a hook that polls
		// until its sidecar is ready holds the next container back; a
		// preStop that waits until the app stops answering holds the
		// sidecar's SIGTERM back. A Job app tells its sidecars by a file.
		for i := range sidecars {
			port := 8081 + i
			sidecars[i].ReadinessProbe = httpProbe(port, period)
			sidecars[i].Lifecycle = &v1.Lifecycle{
				PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{
					"/testserver", "wait-ready", "--timeout", "60s", fmt.Sprintf("http://127.0.0.1:%d/ready", port)}}},
				PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{
					"/testserver", "wait-down", "--timeout", "60s", fmt.Sprintf("http://127.0.0.1:%d/healthz", appPort)}}},
			}
		}
		if kind == results.KindJob {
			pod.Spec.Volumes = []v1.Volume{{Name: "shared", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
			mount := []v1.VolumeMount{{Name: "shared", MountPath: "/shared"}}
			app.VolumeMounts = mount
			app.Env = append(app.Env, envs("TOUCH_ON_EXIT", doneFile)...)
			for i := range sidecars {
				sidecars[i].VolumeMounts = mount
				sidecars[i].Env = append(sidecars[i].Env, envs("EXIT_WHEN_FILE", doneFile, "EXIT_CODE", "0")...)
			}
		}
		pod.Spec.Containers = append(sidecars, app)
	case "none":
		for i := range sidecars {
			sidecars[i].ReadinessProbe = httpProbe(8081+i, period)
		}
		pod.Spec.Containers = append(sidecars, app)
	default:
		panic("unknown style " + w.Style)
	}
	return pod
}

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

package sidecars

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// allocatedBytes returns the bytes f allocates, on average over runs calls.
func allocatedBytes(runs int, f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// podWithContainers returns a pod with n containers c0000, c0001, ...
func podWithContainers(n int) *v1.Pod {
	pod := &v1.Pod{}
	for i := range n {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: fmt.Sprintf("c%04d", i)})
	}
	return pod
}

// podWithNativeSidecars returns a pod with n native sidecars n0000,
// n0001, ... and one app container.
func podWithNativeSidecars(n int) *v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}}}}
	for i := range n {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: fmt.Sprintf("n%04d", i), RestartPolicy: &always})
	}
	return pod
}

// unknownNames is a sidecars value of n names that no container has.
func unknownNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x%04d", i)
	}
	return strings.Join(names, ",")
}

// TestDecideCostIsLinear checks contract rule 16's bound: deciding a layout
// costs memory linear in the annotation's length, whatever it holds. A
// value of n unknown names once cost about 2n² bytes (each problem quoted
// the whole value), so that a pod author could take a node's kubelet to
// gigabytes with one annotation.
func TestDecideCostIsLinear(t *testing.T) {
	// bytesPerByte bounds the memory per byte of what the pod's author
	// wrote, the value and the containers' names: the sets of names, the
	// names kept, and the problems, each quoting at most maxQuoted bytes.
	const bytesPerByte, fixed = 48, 16 << 10
	for _, tc := range []struct {
		name  string
		pod   *v1.Pod
		value string
	}{
		{"256 KiB on a pod of three containers", newAnnotatedPod(nil), strings.Repeat("nope,", 256<<10/5)},
		{"256 KiB of spaces", newAnnotatedPod(nil), strings.Repeat(" ", 256<<10)},
		{"500 unknown names on a pod of 500", podWithContainers(500), unknownNames(500)},
		{"4000 unknown names on a pod of 4000", podWithContainers(4000), unknownNames(4000)},
		{"4000 empty items on a pod of 4000", podWithContainers(4000), strings.Repeat(",", 4000)},
		{"3999 sidecars of a pod of 4000", podWithContainers(4000), strings.ReplaceAll(unknownNames(3999), "x", "c")},
		{"wait-ready naming 3999 of 4000 native sidecars", podWithNativeSidecars(4000), strings.ReplaceAll(unknownNames(3999), "x", "n")},
		{"wait-ready naming 4000 unknown containers on a pod of 4000 native sidecars", podWithNativeSidecars(4000), unknownNames(4000)},
		{"256 KiB without a comma", podWithNativeSidecars(4000), strings.Repeat("n", 256<<10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			annotations := map[string]string{SidecarsAnnotation: tc.value, WaitReadyAnnotation: tc.value}
			d := Decide(tc.pod, annotations)
			if got := len(orNil(d.Err).Error()); got > maxErrorText {
				t.Errorf("the error is %d bytes, more than %d", got, maxErrorText)
			}
			got := allocatedBytes(5, func() { Decide(tc.pod, annotations) })
			written := len(tc.value) + maxSidecarsLen(&tc.pod.Spec) + maxWaitReadyNamesLen(&tc.pod.Spec)
			if limit := uint64(bytesPerByte*written + fixed); got > limit {
				t.Errorf("Decide allocated %d bytes for a value of %d bytes on a pod whose names take %d, more than %d", got, len(tc.value), written-len(tc.value), limit)
			}
			t.Logf("%d bytes for a value of %d bytes (error: %d bytes)", got, len(tc.value), len(orNil(d.Err).Error()))
		})
	}
}

// orNil is err, or an empty *annotationError when err is nil.
func orNil(err error) error {
	if err == nil {
		return &annotationError{}
	}
	return err
}

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

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/release"
)

// gateOptions say which feature gates the kubelet gets.
type gateOptions struct {
	// K8sVersion is the kubelet's release, X.Y.Z, or X.Y.Z-pre for a
	// series pinned to an upstream pre-release.
	K8sVersion string
	// OrderingGate: the kubelet knows the fork's SidecarContainerOrdering
	// gate. An unpatched kubelet does not, and refuses to start with it set.
	OrderingGate bool
	// Overrides is KUBELET_FEATURE_GATES, "Gate=true|false,...": they win.
	Overrides string
	// None writes no featureGates at all.
	None bool
}

var gateItem = regexp.MustCompile(`^([A-Za-z0-9]+)=(true|false)$`)

// forkGates are the feature gates the fork's series adds (feature-gate.patch):
// SidecarContainerOrdering and the two that switch its parts off alone.
// An unpatched kubelet knows none of them and refuses to start with one set.
var forkGates = map[string]bool{
	"SidecarContainerOrdering":     true,
	"SidecarPromptReadinessChecks": true,
	"SidecarTerminationFix":        true,
}

// featureGates resolves the kubelet's feature gates: upstream's defaults,
// plus the fork's SidecarContainerOrdering on where the kubelet knows it,
// then the overrides. Nothing else is turned on for any release, so that a
// node behaves as upstream's does apart from the fork's gate: an alpha gate
// such as EventedPLEG (off by default upstream) is the user's choice,
// KUBELET_FEATURE_GATES=EventedPLEG=true. An override of one of the fork's
// gates is left out for a kubelet that does not know them, so that one
// setting (make bench's BENCH_GATES=SidecarPromptReadinessChecks=false, say)
// can serve the patched kubelet and the unpatched one beside it.
func featureGates(o gateOptions) (map[string]bool, error) {
	if o.None {
		return nil, nil
	}
	// No gate depends on the release, but a malformed one is still refused:
	// a typo in K8S_VERSION should not pass unnoticed.
	if _, err := release.Parse(o.K8sVersion); err != nil {
		return nil, fmt.Errorf("-k8s-version: %v", err)
	}
	gates := map[string]bool{}
	if o.OrderingGate {
		gates["SidecarContainerOrdering"] = true
	}
	for _, item := range strings.Split(o.Overrides, ",") {
		item = strings.Join(strings.Fields(item), "")
		if item == "" {
			continue
		}
		kv := gateItem.FindStringSubmatch(item)
		if kv == nil {
			return nil, fmt.Errorf("KUBELET_FEATURE_GATES: %q is not Gate=true or Gate=false", item)
		}
		if forkGates[kv[1]] && !o.OrderingGate {
			continue
		}
		gates[kv[1]] = kv[2] == "true"
	}
	return gates, nil
}

// formatGates prints gates as Gate=bool,..., sorted.
func formatGates(gates map[string]bool) string {
	var items []string
	for _, k := range slices.Sorted(maps.Keys(gates)) {
		items = append(items, fmt.Sprintf("%s=%t", k, gates[k]))
	}
	return strings.Join(items, ",")
}

// diskOptions are the kubelet's hard eviction and image garbage collection.
// The local cluster's node and the node e2e kubelet share this machine's
// disk with builds, and neither can pull an image back (no registry):
// hack/lib/node.sh passes thresholds that evict only when the disk is
// nearly full, and turns image garbage collection off.
type diskOptions struct {
	// EvictionHard is KUBELET_EVICTION_HARD, "signal<value,...".
	EvictionHard string
	// ImageGCHigh is KUBELET_IMAGE_GC_HIGH, a percentage; the low mark is
	// one below it. 100 turns image garbage collection off.
	ImageGCHigh string
}

var (
	evictionItem = regexp.MustCompile(`^([a-z.]+)<([0-9]+(%|Mi|Gi)?)$`)
	percent      = regexp.MustCompile(`^([1-9][0-9]?|100)$`)
)

func (d diskOptions) apply(c *kubeletv1beta1.KubeletConfiguration) error {
	if d.EvictionHard != "" {
		c.EvictionHard = map[string]string{}
		for _, item := range strings.Split(d.EvictionHard, ",") {
			kv := evictionItem.FindStringSubmatch(item)
			if kv == nil {
				return fmt.Errorf("KUBELET_EVICTION_HARD: %q is not signal<value", item)
			}
			c.EvictionHard[kv[1]] = kv[2]
		}
	}
	if d.ImageGCHigh != "" {
		if !percent.MatchString(d.ImageGCHigh) {
			return fmt.Errorf("KUBELET_IMAGE_GC_HIGH must be a percentage 1-100, not %q", d.ImageGCHigh)
		}
		high, _ := strconv.Atoi(d.ImageGCHigh)
		c.ImageGCHighThresholdPercent = ptr.To(int32(high))
		c.ImageGCLowThresholdPercent = ptr.To(int32(high - 1))
	}
	return nil
}

// kubeletOptions describe one node's kubelet.
type kubeletOptions struct {
	// Node is "cluster" (the local cluster's kubelet: TLS, webhook
	// authentication and authorization against the cluster's CA, on
	// loopback) or "e2e-node" (the base config of upstream's node e2e suite,
	// test/e2e_node/jenkins/default-kubelet-config.yaml with this machine's
	// needs; the suite adds its own settings on top).
	Node string
	// Address is where the kubelet listens.
	Address string
	// Port, HealthzPort, PKIDir and RuntimeEndpoint: the cluster's only.
	Port, HealthzPort int32
	PKIDir            string
	RuntimeEndpoint   string
	// CgroupRoot is the pods' cgroup parent.
	CgroupRoot string
	PodLogsDir string
	Gates      gateOptions
	Disk       diskOptions
}

// kubeletConfig builds the KubeletConfiguration of o and writes it as YAML,
// with a comment that names the environment it was made from.
func kubeletConfig(o kubeletOptions) ([]byte, error) {
	if err := required("address", o.Address, "cgroup-root", o.CgroupRoot, "pod-logs-dir", o.PodLogsDir); err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	c := kubeletv1beta1.KubeletConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		Address:  o.Address,
		// This machine: cgroup v1 (1.35+ refuses it unless told), no
		// systemd as PID 1, swap left as it is.
		CgroupDriver:       "cgroupfs",
		CgroupRoot:         o.CgroupRoot,
		FailCgroupV1:       ptr.To(false),
		FailSwapOn:         ptr.To(false),
		HealthzBindAddress: "127.0.0.1",
		PodLogsDir:         o.PodLogsDir,
	}
	switch o.Node {
	case "cluster":
		if o.Port == 0 || o.HealthzPort == 0 {
			return nil, fmt.Errorf("kubelet: -node cluster needs -port and -healthz-port")
		}
		if err := required("pki-dir", o.PKIDir, "runtime-endpoint", o.RuntimeEndpoint); err != nil {
			return nil, fmt.Errorf("kubelet: -node cluster: %w", err)
		}
		c.Port = o.Port
		c.ReadOnlyPort = 0 // the default: no unauthenticated port
		c.HealthzPort = ptr.To(o.HealthzPort)
		c.TLSCertFile = o.PKIDir + "/kubelet.crt"
		c.TLSPrivateKeyFile = o.PKIDir + "/kubelet.key"
		c.Authentication = kubeletv1beta1.KubeletAuthentication{
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: ptr.To(false)},
			Webhook:   kubeletv1beta1.KubeletWebhookAuthentication{Enabled: ptr.To(true)},
			X509:      kubeletv1beta1.KubeletX509Authentication{ClientCAFile: o.PKIDir + "/ca.crt"},
		}
		c.Authorization = kubeletv1beta1.KubeletAuthorization{Mode: kubeletv1beta1.KubeletAuthorizationModeWebhook}
		c.ContainerRuntimeEndpoint = o.RuntimeEndpoint
		c.ClusterDomain = "cluster.local"
	case "e2e-node":
		if o.Port != 0 || o.HealthzPort != 0 || o.PKIDir != "" || o.RuntimeEndpoint != "" {
			return nil, fmt.Errorf("kubelet: -node e2e-node takes no -port, -healthz-port, -pki-dir or -runtime-endpoint: the suite sets them")
		}
		c.PodCIDR = "10.100.0.0/24"
		c.VolumeStatsAggPeriod = metav1.Duration{Duration: 10 * time.Second}
		c.FileCheckFrequency = metav1.Duration{Duration: 10 * time.Second}
		c.EvictionPressureTransitionPeriod = metav1.Duration{Duration: 30 * time.Second}
		c.SerializeImagePulls = ptr.To(false)
	default:
		return nil, fmt.Errorf("kubelet: -node must be cluster or e2e-node, not %q", o.Node)
	}
	gates, err := featureGates(o.Gates)
	if err != nil {
		return nil, err
	}
	if len(gates) > 0 {
		c.FeatureGates = gates
	}
	if err := o.Disk.apply(&c); err != nil {
		return nil, err
	}
	body, err := marshalSparse(c)
	if err != nil {
		return nil, err
	}
	gatesFrom := "KUBELET_FEATURE_GATES=" + o.Gates.Overrides
	if o.Gates.None {
		gatesFrom = "no feature gates"
	}
	head := fmt.Sprintf("# Generated by hack/tools/clusterconfig for the %s node (%s, KUBELET_EVICTION_HARD=%s, KUBELET_IMAGE_GC_HIGH=%s).\n",
		o.Node, gatesFrom, o.Disk.EvictionHard, o.Disk.ImageGCHigh)
	return append([]byte(head), body...), nil
}

// marshalSparse writes c as YAML without what a zero KubeletConfiguration
// writes too: fields without omitempty (durations, nested structs) would
// otherwise appear as "0s" and "{}", which the kubelet reads as unset
// anyway, and would hide the settings that matter among fifty lines.
func marshalSparse(c kubeletv1beta1.KubeletConfiguration) ([]byte, error) {
	toMap := func(v any) (map[string]any, error) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		return m, json.Unmarshal(raw, &m)
	}
	zero, err := toMap(kubeletv1beta1.KubeletConfiguration{})
	if err != nil {
		return nil, err
	}
	ours, err := toMap(c)
	if err != nil {
		return nil, err
	}
	dropZero(ours, zero)
	return sigsyaml.Marshal(ours)
}

// dropZero removes from m what equals zero's, recursing into objects and
// removing those left empty.
func dropZero(m, zero map[string]any) {
	for k, v := range m {
		z, ok := zero[k]
		if !ok {
			continue
		}
		if vm, isMap := v.(map[string]any); isMap {
			if zm, zIsMap := z.(map[string]any); zIsMap {
				dropZero(vm, zm)
				if len(vm) == 0 {
					delete(m, k)
				}
				continue
			}
		}
		if reflect.DeepEqual(v, z) {
			delete(m, k)
		}
	}
}

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
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
	sigsyaml "sigs.k8s.io/yaml"
)

// The local cluster's settings as hack/lib/cluster.sh passes them.
func clusterKubelet() kubeletOptions {
	return kubeletOptions{
		Node: "cluster", Address: "127.0.0.1", Port: 10350, HealthzPort: 10348,
		PKIDir: "/c/pki", RuntimeEndpoint: "unix:///c/run/containerd.sock",
		CgroupRoot: "/sidecar-kubelet", PodLogsDir: "/c/pod-logs",
		Gates: gateOptions{K8sVersion: pinned[""], OrderingGate: true},
		Disk:  diskOptions{EvictionHard: "memory.available<100Mi,nodefs.available<2%,imagefs.available<2%", ImageGCHigh: "100"},
	}
}

// The KubeletConfiguration clusterKubelet gives.
func clusterWant() kubeletv1beta1.KubeletConfiguration {
	return kubeletv1beta1.KubeletConfiguration{
		TypeMeta:           metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		Address:            "127.0.0.1",
		Port:               10350,
		HealthzBindAddress: "127.0.0.1",
		HealthzPort:        ptr.To[int32](10348),
		TLSCertFile:        "/c/pki/kubelet.crt",
		TLSPrivateKeyFile:  "/c/pki/kubelet.key",
		Authentication: kubeletv1beta1.KubeletAuthentication{
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: ptr.To(false)},
			Webhook:   kubeletv1beta1.KubeletWebhookAuthentication{Enabled: ptr.To(true)},
			X509:      kubeletv1beta1.KubeletX509Authentication{ClientCAFile: "/c/pki/ca.crt"},
		},
		Authorization:               kubeletv1beta1.KubeletAuthorization{Mode: kubeletv1beta1.KubeletAuthorizationModeWebhook},
		ContainerRuntimeEndpoint:    "unix:///c/run/containerd.sock",
		CgroupDriver:                "cgroupfs",
		CgroupRoot:                  "/sidecar-kubelet",
		FailCgroupV1:                ptr.To(false),
		FailSwapOn:                  ptr.To(false),
		PodLogsDir:                  "/c/pod-logs",
		ClusterDomain:               "cluster.local",
		FeatureGates:                map[string]bool{"SidecarContainerOrdering": true},
		EvictionHard:                map[string]string{"memory.available": "100Mi", "nodefs.available": "2%", "imagefs.available": "2%"},
		ImageGCHighThresholdPercent: ptr.To[int32](100),
		ImageGCLowThresholdPercent:  ptr.To[int32](99),
	}
}

// The node e2e suite's base config (hack/e2e-node/run.sh), patched kubelet.
func e2eNodeKubelet() kubeletOptions {
	return kubeletOptions{
		Node: "e2e-node", Address: "10.199.0.1",
		CgroupRoot: "/sidecar-kubelet-e2e-node", PodLogsDir: "/e/pod-logs",
		Gates: gateOptions{K8sVersion: pinned[""], OrderingGate: true},
		Disk:  diskOptions{EvictionHard: "memory.available<100Mi,nodefs.available<2%,imagefs.available<2%", ImageGCHigh: "100"},
	}
}

func e2eNodeWant() kubeletv1beta1.KubeletConfiguration {
	return kubeletv1beta1.KubeletConfiguration{
		TypeMeta:                         metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		Address:                          "10.199.0.1",
		HealthzBindAddress:               "127.0.0.1",
		CgroupDriver:                     "cgroupfs",
		CgroupRoot:                       "/sidecar-kubelet-e2e-node",
		FailCgroupV1:                     ptr.To(false),
		FailSwapOn:                       ptr.To(false),
		PodLogsDir:                       "/e/pod-logs",
		PodCIDR:                          "10.100.0.0/24",
		VolumeStatsAggPeriod:             metav1.Duration{Duration: 10 * time.Second},
		FileCheckFrequency:               metav1.Duration{Duration: 10 * time.Second},
		EvictionPressureTransitionPeriod: metav1.Duration{Duration: 30 * time.Second},
		SerializeImagePulls:              ptr.To(false),
		FeatureGates:                     map[string]bool{"SidecarContainerOrdering": true},
		EvictionHard:                     map[string]string{"memory.available": "100Mi", "nodefs.available": "2%", "imagefs.available": "2%"},
		ImageGCHighThresholdPercent:      ptr.To[int32](100),
		ImageGCLowThresholdPercent:       ptr.To[int32](99),
	}
}

func TestKubeletConfig(t *testing.T) {
	tests := []struct {
		name string
		opts func(*kubeletOptions)
		base func() kubeletOptions
		want func(*kubeletv1beta1.KubeletConfiguration)
	}{
		{name: "cluster, the defaults", base: clusterKubelet},
		{
			name: "cluster, v1.36: the same defaults",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) { o.Gates.K8sVersion = pinned["1.36"] },
		},
		{
			// A series pinned to a pre-release gets no gate of its own
			// either: upstream's defaults are that pre-release's.
			name: "cluster, a v1.37 pre-release: the same defaults, no EventedPLEG",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) { o.Gates.K8sVersion = "1.37.0-rc.1" },
		},
		{
			name: "cluster, a v1.36 pre-release: the same defaults",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) { o.Gates.K8sVersion = "v1.36.0-alpha.0" },
		},
		{
			name: "cluster, v1.37: KUBELET_FEATURE_GATES=EventedPLEG=true turns the alpha gate on",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) {
				o.Gates.K8sVersion = "1.37.0"
				o.Gates.Overrides = "EventedPLEG=true"
			},
			want: func(c *kubeletv1beta1.KubeletConfiguration) {
				c.FeatureGates = map[string]bool{"SidecarContainerOrdering": true, "EventedPLEG": true}
			},
		},
		{
			name: "cluster, the unpatched kubelet: no SidecarContainerOrdering, which it would refuse, so no gates",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) { o.Gates.OrderingGate = false },
			want: func(c *kubeletv1beta1.KubeletConfiguration) { c.FeatureGates = nil },
		},
		{
			name: "cluster, unpatched on v1.35: no gates at all",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) { o.Gates = gateOptions{K8sVersion: pinned["1.35"]} },
			want: func(c *kubeletv1beta1.KubeletConfiguration) { c.FeatureGates = nil },
		},
		{
			name: "cluster, KUBELET_FEATURE_GATES wins over the defaults, blanks and empty items ignored",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) {
				o.Gates.Overrides = " SidecarContainerOrdering = false,,EventedPLEG=false, InPlacePodVerticalScaling=true,"
			},
			want: func(c *kubeletv1beta1.KubeletConfiguration) {
				c.FeatureGates = map[string]bool{"SidecarContainerOrdering": false, "EventedPLEG": false, "InPlacePodVerticalScaling": true}
			},
		},
		{
			name: "cluster, the fork's gates overridden: kept for the patched kubelet",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) {
				o.Gates.Overrides = "SidecarPromptReadinessChecks=false,SidecarTerminationFix=false,EventedPLEG=true"
			},
			want: func(c *kubeletv1beta1.KubeletConfiguration) {
				c.FeatureGates = map[string]bool{"SidecarContainerOrdering": true, "SidecarPromptReadinessChecks": false,
					"SidecarTerminationFix": false, "EventedPLEG": true}
			},
		},
		{
			name: "cluster, the fork's gates overridden: left out for the unpatched kubelet, which would refuse them",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) {
				o.Gates.OrderingGate = false
				o.Gates.Overrides = "SidecarPromptReadinessChecks=false,SidecarTerminationFix=false,SidecarContainerOrdering=true,EventedPLEG=true"
			},
			want: func(c *kubeletv1beta1.KubeletConfiguration) { c.FeatureGates = map[string]bool{"EventedPLEG": true} },
		},
		{
			name: "cluster, KUBELET_EVICTION_HARD and KUBELET_IMAGE_GC_HIGH empty: the kubelet's own defaults",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) { o.Disk = diskOptions{} },
			want: func(c *kubeletv1beta1.KubeletConfiguration) {
				c.EvictionHard = nil
				c.ImageGCHighThresholdPercent = nil
				c.ImageGCLowThresholdPercent = nil
			},
		},
		{
			name: "cluster, other thresholds: Gi, a bare number, image GC from 90%",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) {
				o.Disk = diskOptions{EvictionHard: "nodefs.available<1Gi,pid.available<100", ImageGCHigh: "90"}
			},
			want: func(c *kubeletv1beta1.KubeletConfiguration) {
				c.EvictionHard = map[string]string{"nodefs.available": "1Gi", "pid.available": "100"}
				c.ImageGCHighThresholdPercent = ptr.To[int32](90)
				c.ImageGCLowThresholdPercent = ptr.To[int32](89)
			},
		},
		{
			name: "cluster instance 1: its ports and folders",
			base: clusterKubelet,
			opts: func(o *kubeletOptions) {
				o.Port, o.HealthzPort = 10450, 10448
				o.PKIDir, o.RuntimeEndpoint = "/c1/pki", "unix:///c1/run/containerd.sock"
				o.CgroupRoot, o.PodLogsDir = "/sidecar-kubelet-1", "/c1/pod-logs"
			},
			want: func(c *kubeletv1beta1.KubeletConfiguration) {
				c.Port, c.HealthzPort = 10450, ptr.To[int32](10448)
				c.TLSCertFile, c.TLSPrivateKeyFile = "/c1/pki/kubelet.crt", "/c1/pki/kubelet.key"
				c.Authentication.X509.ClientCAFile = "/c1/pki/ca.crt"
				c.ContainerRuntimeEndpoint = "unix:///c1/run/containerd.sock"
				c.CgroupRoot, c.PodLogsDir = "/sidecar-kubelet-1", "/c1/pod-logs"
			},
		},
		{name: "e2e-node, the patched kubelet", base: e2eNodeKubelet},
		{
			name: "e2e-node, the unpatched kubelet: no featureGates, whatever KUBELET_FEATURE_GATES says",
			base: e2eNodeKubelet,
			opts: func(o *kubeletOptions) { o.Gates = gateOptions{None: true, Overrides: "Foo=true"} },
			want: func(c *kubeletv1beta1.KubeletConfiguration) { c.FeatureGates = nil },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.base()
			want := clusterWant()
			if o.Node == "e2e-node" {
				want = e2eNodeWant()
			}
			if tc.opts != nil {
				tc.opts(&o)
			}
			if tc.want != nil {
				tc.want(&want)
			}
			out, err := kubeletConfig(o)
			if err != nil {
				t.Fatal(err)
			}
			gatesFrom := "KUBELET_FEATURE_GATES=" + o.Gates.Overrides
			if o.Gates.None {
				gatesFrom = "no feature gates"
			}
			if !bytes.HasPrefix(out, []byte("# Generated by hack/tools/clusterconfig for the "+o.Node+" node ("+gatesFrom+", KUBELET_EVICTION_HARD="+o.Disk.EvictionHard+", ")) {
				t.Errorf("the first line does not say what made the file and from what:\n%s", out)
			}
			// Strictly, as the kubelet reads its --config: an unknown or
			// misspelt field fails.
			var got kubeletv1beta1.KubeletConfiguration
			if err := sigsyaml.UnmarshalStrict(out, &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("KubeletConfiguration (-want +got):\n%s\n%s", diff, out)
			}
			// What a zero KubeletConfiguration writes stays out: no "0s", no "{}".
			for _, noise := range []string{": 0s", "{}", `: ""`} {
				if bytes.Contains(out, []byte(noise)) {
					t.Errorf("the config holds %q:\n%s", noise, out)
				}
			}
		})
	}
}

func TestKubeletConfigRefuses(t *testing.T) {
	tests := []struct {
		name    string
		base    func() kubeletOptions
		opts    func(*kubeletOptions)
		wantErr string
	}{
		{"a gate without a value", clusterKubelet, func(o *kubeletOptions) { o.Gates.Overrides = "EventedPLEG" }, `KUBELET_FEATURE_GATES: "EventedPLEG" is not Gate=true or Gate=false`},
		{"a gate that is not a bool", clusterKubelet, func(o *kubeletOptions) { o.Gates.Overrides = "EventedPLEG=yes" }, `"EventedPLEG=yes" is not Gate=true`},
		{"a gate name with a dash", clusterKubelet, func(o *kubeletOptions) { o.Gates.Overrides = "Evented-PLEG=true" }, `"Evented-PLEG=true" is not Gate=true`},
		{"no release", clusterKubelet, func(o *kubeletOptions) { o.Gates.K8sVersion = "" }, `-k8s-version: "" is not X.Y.Z or X.Y.Z-pre`},
		{"a minor", clusterKubelet, func(o *kubeletOptions) { o.Gates.K8sVersion = "1.37" }, `-k8s-version: "1.37" is not X.Y.Z`},
		{"an empty pre-release", clusterKubelet, func(o *kubeletOptions) { o.Gates.K8sVersion = "1.37.0-" }, `-k8s-version: "1.37.0-" is not X.Y.Z`},
		{"a kubelet's version string", clusterKubelet, func(o *kubeletOptions) { o.Gates.K8sVersion = "v1.37.0-rc.1-sidecar-kubelet+0123456789ab" }, `is not X.Y.Z`},
		{"an eviction threshold with >", clusterKubelet, func(o *kubeletOptions) { o.Disk.EvictionHard = "memory.available>100Mi" }, `KUBELET_EVICTION_HARD: "memory.available>100Mi" is not signal<value`},
		{"an eviction threshold in Ki", clusterKubelet, func(o *kubeletOptions) { o.Disk.EvictionHard = "memory.available<100Ki" }, `"memory.available<100Ki" is not signal<value`},
		{"image GC at 0%", clusterKubelet, func(o *kubeletOptions) { o.Disk.ImageGCHigh = "0" }, `KUBELET_IMAGE_GC_HIGH must be a percentage 1-100, not "0"`},
		{"image GC at 101%", clusterKubelet, func(o *kubeletOptions) { o.Disk.ImageGCHigh = "101" }, `not "101"`},
		{"another node", clusterKubelet, func(o *kubeletOptions) { o.Node = "kind" }, `-node must be cluster or e2e-node, not "kind"`},
		{"cluster without ports", clusterKubelet, func(o *kubeletOptions) { o.Port = 0 }, `-node cluster needs -port and -healthz-port`},
		{"cluster without its PKI", clusterKubelet, func(o *kubeletOptions) { o.PKIDir = "" }, `missing -pki-dir`},
		{"no cgroup root", clusterKubelet, func(o *kubeletOptions) { o.CgroupRoot = "" }, `missing -cgroup-root`},
		{"e2e-node with a port the suite sets", e2eNodeKubelet, func(o *kubeletOptions) { o.Port = 10250 }, `-node e2e-node takes no -port`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.base()
			tc.opts(&o)
			_, err := kubeletConfig(o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}

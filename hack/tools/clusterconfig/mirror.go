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
	"fmt"
	"net/url"
	"strings"
)

// mirrorOptions describe one registry host that containerd reaches through
// a mirror: the node e2e suite's images come from hack/tools/imgserve, a
// registry on loopback, instead of their own registries.
type mirrorOptions struct {
	Host   string // the registry the images are named after, e.g. registry.k8s.io
	Mirror string // the mirror's URL, e.g. http://127.0.0.1:41234
}

// containerd's hosts.toml (a certs.d/<host>/hosts.toml of
// registry.config_path), the parts set here.
type hostsFile struct {
	Server string               `toml:"server"`
	Host   map[string]hostEntry `toml:"host"`
}

type hostEntry struct {
	Capabilities []string `toml:"capabilities"`
}

// mirrorHostsFile is the hosts.toml that sends pulls and resolves of
// o.Host's images to o.Mirror.
func mirrorHostsFile(o mirrorOptions) ([]byte, error) {
	if o.Host == "" || strings.ContainsAny(o.Host, "/ ") {
		return nil, fmt.Errorf("mirror: -host must be a registry host (host or host:port), not %q", o.Host)
	}
	u, err := url.Parse(o.Mirror)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mirror: -mirror must be an http:// or https:// URL, not %q", o.Mirror)
	}
	return tomlFile(fmt.Sprintf("# Written by hack/tools/clusterconfig: %s stands in for %s.\n", o.Mirror, o.Host), hostsFile{
		Server: "https://" + o.Host,
		Host:   map[string]hostEntry{o.Mirror: {Capabilities: []string{"pull", "resolve"}}},
	})
}

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

package bootclock

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// bootIDPath names the current boot: a new random ID at every boot.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

func read() (sidecars.BootClock, error) {
	id, err := os.ReadFile(bootIDPath)
	if err != nil {
		return sidecars.BootClock{}, err
	}
	// CLOCK_BOOTTIME, not CLOCK_MONOTONIC: it also counts the time the node
	// was suspended, which a pod's grace period does not stop for.
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return sidecars.BootClock{}, fmt.Errorf("reading CLOCK_BOOTTIME: %w", err)
	}
	return sidecars.BootClock{BootID: strings.TrimSpace(string(id)), SinceBoot: time.Duration(ts.Nano())}, nil
}

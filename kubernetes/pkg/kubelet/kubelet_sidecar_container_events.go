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

package kubelet

// This file belongs to sidecar-kubelet's patch series: a pod whose
// containers the sidecar layout orders is relisted as soon as the runtime
// reports that one of its containers stopped.

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"k8s.io/apimachinery/pkg/types"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"
)

// containerEventsRetry is how long the kubelet waits before it follows the
// runtime's container events again after the stream ended, doubling up to
// containerEventsMaxRetry while the stream keeps failing.
const (
	containerEventsRetry    = time.Second
	containerEventsMaxRetry = time.Minute
)

// sidecarStopListener is the part of the kubelet's runtime that, in the
// kill of a pod with sidecars, waits for an annotated sidecar to stop so as
// to start it again while the apps drain (kuberuntime: sidecarStopEvents).
type sidecarStopListener interface {
	// SidecarContainerStopped tells it the runtime reported the
	// container stopped.
	SidecarContainerStopped(containerID string)
	// SidecarStopEventsFollowed tells it whether the kubelet follows the
	// runtime's container events now.
	SidecarStopEventsFollowed(followed bool)
}

// relistOrderedPodsOnContainerStop follows the runtime's container events
// until ctx ends, and asks the PLEG to relist a pod whose containers the
// sidecar layout orders as soon as one of its containers stops.
//
// Without EventedPLEG (alpha, off by default) the kubelet learns of a
// container's exit at the next relist, up to a second after it. For a pod
// with a sidecar layout that second stands between a Job pod's last app
// exit and the stop of its sidecars, and again between that stop and the
// pod's terminal phase. The CRI's container events stream, which
// EventedPLEG reads, tells of the exit at once; the runtime sends every
// event to each of its subscribers (containerd from 2.0). The kubelet reads
// only the stop events, and only for ordered pods: every other pod and
// event keeps upstream's periodic relist. With EventedPLEG on, its own PLEG
// follows the stream, and the kubelet does not start this.
//
// The same stop events wake the kill of a pod with sidecars that waits for
// an annotated sidecar to stop, in the runtime (sidecarStopListener), which
// asks the runtime seldom while the stream is followed.
func (kl *Kubelet) relistOrderedPodsOnContainerStop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	listener, _ := kl.containerRuntime.(sidecarStopListener)
	retry := containerEventsRetry
	for ctx.Err() == nil {
		streamCtx, cancel := context.WithCancel(ctx)
		events := make(chan *runtimeapi.ContainerEventResponse, 64)
		ended := make(chan error, 1)
		if listener != nil {
			listener.SidecarStopEventsFollowed(true)
		}
		go func() { ended <- kl.runtimeService.GetContainerEvents(streamCtx, events, nil) }()
		err := kl.followContainerStops(streamCtx, listener, events, ended, &retry)
		cancel()
		if listener != nil {
			listener.SidecarStopEventsFollowed(false)
		}
		if ctx.Err() != nil {
			return
		}
		if status.Code(err) == codes.Unimplemented {
			logger.Info("The container runtime does not stream container events; pods with sidecars learn of their containers' exits at the periodic relist", "err", err)
			return
		}
		logger.V(2).Info("The container runtime's events stream ended; following it again", "err", err, "in", retry)
		select {
		case <-time.After(retry):
		case <-ctx.Done():
			return
		}
		retry = min(2*retry, containerEventsMaxRetry)
	}
}

// followContainerStops hands each event of the stream to
// relistOrderedPodOnContainerStop until the stream ends, and returns why it
// ended. An event resets the retry: the stream works. listener, if not nil,
// is the runtime's part that the stops are handed to.
func (kl *Kubelet) followContainerStops(ctx context.Context, listener sidecarStopListener, events <-chan *runtimeapi.ContainerEventResponse, ended <-chan error, retry *time.Duration) error {
	logger := klog.FromContext(ctx)
	for {
		select {
		case e := <-events:
			*retry = containerEventsRetry
			kl.relistOrderedPodOnContainerStop(logger, listener, e)
		case err := <-ended:
			// The events the stream sent before it ended.
			for {
				select {
				case e := <-events:
					kl.relistOrderedPodOnContainerStop(logger, listener, e)
				default:
					return err
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// relistOrderedPodOnContainerStop asks the PLEG to relist the event's pod
// at once if the event is a container's stop, the pod's containers the
// sidecar layout orders and the kubelet is not terminating the pod; it
// leaves every other event alone. It hands every stop to the runtime's
// kills that wait for annotated sidecars to stop (listener, unless nil).
func (kl *Kubelet) relistOrderedPodOnContainerStop(logger klog.Logger, listener sidecarStopListener, e *runtimeapi.ContainerEventResponse) {
	if e.GetContainerEventType() != runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT {
		return
	}
	// A kill waits only for the containers of pods with a sidecar layout;
	// for any other container this is a map lookup. It comes before the
	// pod's lookup: a pod deleted at once leaves the pod manager while its
	// kill still waits.
	if listener != nil {
		listener.SidecarContainerStopped(e.GetContainerId())
	}
	uid := types.UID(e.GetPodSandboxStatus().GetMetadata().GetUid())
	if uid == "" {
		return
	}
	pod, ok := kl.podManager.GetPodByUID(uid)
	if !ok {
		return
	}
	if layout, _ := kl.sidecarLayoutInCache(pod); !layout.Ordered() {
		return
	}
	// A pod whose termination was asked for has its containers stopped by
	// the kubelet itself, which relists after its own sync: a relist per
	// stop would only cost the runtime a list of the node's containers.
	if kl.podWorkers.IsPodTerminationRequested(uid) {
		return
	}
	logger.V(4).Info("A container of a pod with sidecars stopped; relisting the pod at once", "podUID", uid, "containerID", e.GetContainerId())
	kl.RequestPodRelist(logger, uid)
}

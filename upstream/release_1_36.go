//go:build !k8s_before_1_36 && k8s_before_1_37

package main

// v1.36 only: flushUnschedulablePodsLeftover marks a flushed pod with the
// WasFlushedFromUnschedulable field (pkg/scheduler/backend/queue/scheduling_queue.go,
// kubernetes/kubernetes#135126); v1.37 keeps the flush time too (release_since_1_37.go).

import (
	"time"

	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// markFlushed does to the pod what the queue's unschedulable-pods flush does.
func markFlushed(qpi *framework.QueuedPodInfo, _ time.Time) {
	qpi.WasFlushedFromUnschedulable = true
}

//go:build !k8s_before_1_37

package main

// What v1.37 changed that the harness calls (the older releases: release_before_1_37.go):
//   - The queue holds QueuedEntityInfo (a pod or a pod group) and the scheduler pops with
//     NextEntity (kubernetes/kubernetes#138567); GetPod takes the pod's scheduling group
//     (pkg/scheduler/backend/queue/scheduling_queue.go).
//   - NewInformerFactory takes an informer name (pkg/scheduler/scheduler.go).
//   - scheduler.WithNodeInfoSnapshot and the framework's mutable snapshot lister
//     (pkg/scheduler/scheduler.go, pkg/scheduler/framework/runtime/framework.go
//     WithMutableSnapshotLister), which preemption lists nodes from
//     (pkg/scheduler/framework/preemption/preemption.go).
//   - NodePluginScores.RawScores: the Score plugins' output before normalization.
//   - PodSchedulingPropertiesChange says whether the pod is the target pod
//     (pkg/scheduler/framework/events.go).
//   - The unschedulable-pods flush keeps the flush time and counts from it
//     (flushUnschedulableEntitiesLeftover).

import (
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/scheduler"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

func (w *world) observeNext() {
	next := w.sched.NextEntity
	w.sched.NextEntity = func(logger klog.Logger) (framework.QueuedEntityInfo, error) {
		e, err := next(logger)
		if err != nil || e == nil {
			return e, err
		}
		if qpi, ok := e.(*framework.QueuedPodInfo); ok && !w.attempt(qpi) {
			return nil, nil
		}
		return e, err
	}
}

func queuedPod(q internalqueue.SchedulingQueue, p *v1.Pod) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(p.Name, p.Namespace, nil)
}

func newInformerFactory(cs clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(cs, 0, nil)
}

// snapshotOptions gives the scheduler our snapshot; adoptSnapshot has nothing left to do.
func (w *world) snapshotOptions() []scheduler.Option {
	w.snapshot = internalcache.NewEmptySnapshot()
	return []scheduler.Option{scheduler.WithNodeInfoSnapshot(w.snapshot)}
}

func (w *world) adoptSnapshot() {}

func (w *world) mutableSnapshotFrameworkOptions() []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithMutableSnapshotLister(w.snapshot)}
}

func mutableNodeInfos(fw framework.Framework) nodeInfoLister {
	return fw.MutableSnapshotSharedLister().NodeInfos()
}

func podSchedulingPropertiesChange(newPod, oldPod *v1.Pod) []fwk.ClusterEvent {
	return framework.PodSchedulingPropertiesChange(newPod, oldPod, false)
}

// lastQueueTime is when the pod last entered the unschedulable pods or was flushed from them.
func lastQueueTime(qpi *framework.QueuedPodInfo) time.Time {
	if qpi.FlushTimestamp.After(qpi.Timestamp) {
		return qpi.FlushTimestamp
	}
	return qpi.Timestamp
}

// markFlushed does to the pod what the queue's unschedulable-pods flush does.
func markFlushed(qpi *framework.QueuedPodInfo, now time.Time) {
	qpi.SetWasFlushedFromUnschedulable(true)
	qpi.SetFlushTimestamp(now)
}

// rawScores is each Score plugin's output before normalization: NodePluginScores.RawScores
// (new in v1.37, kube-scheduler framework/interface.go); score is not needed.
func rawScores(s nodePluginScores, _ func(plugin string) int64) map[string]int64 {
	raw := map[string]int64{}
	for _, r := range s.RawScores {
		raw[r.Name] = r.Score
	}
	return raw
}

// decodeDeviceTaintRule reads a resource.k8s.io/v1 DeviceTaintRule (served in v1 since v1.37,
// k8s.io/api/resource/v1/types.go) with v1 defaulting; the scheduler's ResourceSlice tracker
// applies it to the slices when DRADeviceTaintRules is on (pkg/scheduler/scheduler.go).
func decodeDeviceTaintRule(o rawObject, c *Cluster) (string, bool, error) {
	r := &resourceapi.DeviceTaintRule{}
	if err := decodeTyped(o, r); err != nil {
		return "", true, err
	}
	if r.UID == "" {
		r.UID = deterministicUID("DeviceTaintRule", "", r.Name)
	}
	legacyscheme.Scheme.Default(r)
	c.DRA.TaintRules = append(c.DRA.TaintRules, r)
	return "DeviceTaintRule " + r.Name, true, nil
}

// servesDeviceTaintRules: resource.k8s.io/v1 serves DeviceTaintRules (since v1.37), which
// timeline events may write (timeline_objects.go).
const servesDeviceTaintRules = true

// taintRuleInformer is the DeviceTaintRule informer the scheduler's ResourceSlice tracker reads
// (pkg/scheduler/scheduler.go, with DRADeviceTaintRules); watchDRA counts its events.
func taintRuleInformer(w *world) cache.SharedIndexInformer {
	return w.factory.Resource().V1().DeviceTaintRules().Informer()
}

//go:build k8s_before_1_37

package main

// Before v1.37 (the newer releases: release_since_1_37.go):
//   - The scheduler pops a *QueuedPodInfo with NextPod, and GetPod takes a name and namespace
//     (pkg/scheduler/scheduler.go, pkg/scheduler/backend/queue/scheduling_queue.go of v1.36.3).
//   - NewInformerFactory takes no informer name (pkg/scheduler/scheduler.go).
//   - No scheduler.WithNodeInfoSnapshot: scheduler.New makes the snapshot and hands it to every
//     profile's framework (WithSnapshotSharedLister), where we take it from; preemption lists
//     nodes from that snapshot (pkg/scheduler/framework/preemption/preemption.go).
//   - PodSchedulingPropertiesChange has no target-pod argument (pkg/scheduler/framework/events.go).
//   - The unschedulable-pods flush counts from the pod's Timestamp only
//     (flushUnschedulablePodsLeftover).

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

func (w *world) observeNext() {
	next := w.sched.NextPod
	w.sched.NextPod = func(logger klog.Logger) (*framework.QueuedPodInfo, error) {
		qpi, err := next(logger)
		if err != nil || qpi == nil {
			return qpi, err
		}
		if !w.attempt(qpi) {
			return nil, nil
		}
		return qpi, err
	}
}

func queuedPod(q internalqueue.SchedulingQueue, p *v1.Pod) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(p.Name, p.Namespace)
}

func newInformerFactory(cs clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(cs, 0)
}

// snapshotOptions: scheduler.New makes the snapshot; adoptSnapshot takes it from a profile.
func (w *world) snapshotOptions() []scheduler.Option { return nil }

func (w *world) adoptSnapshot() {
	for _, prof := range w.sched.Profiles {
		w.snapshot = prof.SnapshotSharedLister().(*internalcache.Snapshot)
		return
	}
}

func (w *world) mutableSnapshotFrameworkOptions() []frameworkruntime.Option { return nil }

func mutableNodeInfos(fw framework.Framework) nodeInfoLister {
	return fw.SnapshotSharedLister().NodeInfos()
}

func podSchedulingPropertiesChange(newPod, oldPod *v1.Pod) []fwk.ClusterEvent {
	return framework.PodSchedulingPropertiesChange(newPod, oldPod)
}

// lastQueueTime is when the pod last entered the unschedulable pods.
func lastQueueTime(qpi *framework.QueuedPodInfo) time.Time { return qpi.Timestamp }

// rawScores is each Score plugin's output before normalization. NodePluginScores has no
// RawScores before v1.37 (kube-scheduler framework/interface.go), so score asks the plugin again.
func rawScores(s nodePluginScores, score func(plugin string) int64) map[string]int64 {
	raw := map[string]int64{}
	for _, ps := range s.Scores {
		raw[ps.Name] = score(ps.Name)
	}
	return raw
}

// decodeDeviceTaintRule: before v1.37 resource.k8s.io/v1 serves no DeviceTaintRule (v1beta2
// and v1alpha3 do, k8s.io/api/resource/*/types.go of v1.36.3), and DRADeviceTaintRules is off
// by default, so the scheduler's ResourceSlice tracker reads none: the document is ignored
// (reported with the ignored kinds). Its name is kept for the timeline's deletes
// (UnservedTaintRules).
func decodeDeviceTaintRule(o rawObject, c *Cluster) (string, bool, error) {
	if m, ok := o.doc["metadata"].(map[string]interface{}); ok {
		if name, ok := m["name"].(string); ok && name != "" {
			c.DRA.UnservedTaintRules = append(c.DRA.UnservedTaintRules, name)
		}
	}
	return "", false, nil
}

// servesDeviceTaintRules: before v1.37 resource.k8s.io/v1 serves no DeviceTaintRule, so a
// timeline event writing one has nothing to write to (timeline_objects.go).
const servesDeviceTaintRules = false

// taintRuleInformer: none (no v1 DeviceTaintRules before v1.37).
func taintRuleInformer(*world) cache.SharedIndexInformer { return nil }

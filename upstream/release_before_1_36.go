//go:build k8s_before_1_36

package main

// Before v1.36 (the newer releases: release_since_1_36.go):
//   - Scheduler.SchedulePod takes the *v1.Pod (pkg/scheduler/scheduler.go of v1.35.4).
//   - profile.RecorderFactory returns an events.EventRecorder (pkg/scheduler/profile/profile.go).
//   - Framework.RunPermitPlugins returns only the status (pkg/scheduler/framework/interface.go).
//   - No PodInfo.WasFlushedFromUnschedulable (added with the
//     scheduler_pod_scheduled_after_flush_total metric, kubernetes/kubernetes#135126).

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

func (w *world) observeSchedulePod() {
	schedulePod := w.sched.SchedulePod
	w.sched.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod) (scheduler.ScheduleResult, error) {
		res, err := schedulePod(ctx, fw, state, pod)
		w.scheduledPod(pod, res, err)
		return res, err
	}
}

// schedulePodOnce runs the scheduler's SchedulePod for a pod outside the queue (explain).
func (w *world) schedulePodOnce(ctx context.Context, fw framework.Framework, state fwk.CycleState, pi *framework.PodInfo) (scheduler.ScheduleResult, error) {
	return w.sched.SchedulePod(ctx, fw, state, pi.Pod)
}

func nopRecorderFactory() profile.RecorderFactory {
	return func(string) events.EventRecorder { return nopRecorder{} }
}

// RunPermitPlugins: observed by permitted.
func (f *observedFramework) RunPermitPlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	st := f.Framework.RunPermitPlugins(ctx, state, pod, nodeName)
	f.permitted(pod, st)
	return st
}

// markFlushed: nothing to mark before v1.36.
func markFlushed(*framework.QueuedPodInfo, time.Time) {}

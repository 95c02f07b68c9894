//go:build !k8s_before_1_36

package main

// What v1.36 changed that the harness calls (the older releases: release_before_1_36.go):
//   - Scheduler.SchedulePod takes the *framework.QueuedPodInfo (pkg/scheduler/scheduler.go).
//   - profile.RecorderFactory returns an events.EventRecorderLogger (pkg/scheduler/profile/
//     profile.go).
//   - Framework.RunPermitPlugins also returns each plugin's wait time (pkg/scheduler/framework/
//     interface.go).
//   - The framework takes a PodGroupManager and the map of pods in PreBind (pkg/scheduler/
//     framework/runtime/framework.go WithPodGroupManager, WithPodsInPreBind).

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

func (w *world) observeSchedulePod() {
	schedulePod := w.sched.SchedulePod
	w.sched.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		res, err := schedulePod(ctx, fw, state, podInfo)
		w.scheduledPod(podInfo.Pod, res, err)
		return res, err
	}
}

// schedulePodOnce runs the scheduler's SchedulePod for a pod outside the queue (explain).
func (w *world) schedulePodOnce(ctx context.Context, fw framework.Framework, state fwk.CycleState, pi *framework.PodInfo) (scheduler.ScheduleResult, error) {
	return w.sched.SchedulePod(ctx, fw, state, &framework.QueuedPodInfo{PodInfo: pi})
}

func nopRecorderFactory() profile.RecorderFactory {
	return func(string) events.EventRecorderLogger { return nopRecorder{} }
}

// RunPermitPlugins: observed by permitted.
func (f *observedFramework) RunPermitPlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) (map[string]time.Duration, *fwk.Status) {
	waits, st := f.Framework.RunPermitPlugins(ctx, state, pod, nodeName)
	f.permitted(pod, st)
	return waits, st
}

// podGroupFrameworkOptions shares the scheduler's pod group manager with explain's framework.
func podGroupFrameworkOptions(h framework.Framework) []frameworkruntime.Option {
	return []frameworkruntime.Option{
		frameworkruntime.WithPodGroupManager(h.PodGroupManager()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
	}
}

package main

// Observation points on the real scheduler, all through its public surface: the profiles map
// holds our wrapper around each profile's framework (it forwards every call and looks at a few
// results), and the scheduler's NextEntity (NextPod before v1.37), SchedulePod and
// FailureHandler fields are wrapped (release_*.go where the releases differ).

import (
	"context"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// observedFramework is a profile's framework with a few calls observed.
type observedFramework struct {
	framework.Framework
	w  *world
	pe *preemptionNotes
	// lastScores holds the scores of the last RunScorePlugins call (explain and simulate).
	lastScores []nodePluginScores
	lastNodes  []string
}

// RunScorePlugins: the scores upstream computed (for the tie set of the chosen node).
func (f *observedFramework) RunScorePlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]nodePluginScores, *fwk.Status) {
	ns, st := f.Framework.RunScorePlugins(ctx, state, pod, nodes)
	f.lastNodes = f.lastNodes[:0]
	for _, n := range nodes {
		f.lastNodes = append(f.lastNodes, n.Node().Name)
	}
	// A copy: the caller turns the slice into a heap in place (NewSortedScoredNodes).
	f.lastScores = append([]nodePluginScores(nil), ns...)
	if f.w.rec != nil && st.IsSuccess() {
		f.w.rec.scored(pod, f.lastScores)
	}
	return ns, st
}

// RunPostFilterPlugins: preemption. Before the real PostFilter runs, a side-effect-free dry run
// over every potential node records where upstream's choice depends on randomness.
func (f *observedFramework) RunPostFilterPlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m nodeToStatusReader) (*postFilterResult, *fwk.Status) {
	var dry *dryRun
	if f.pe != nil {
		dry = f.pe.before(ctx, f.Framework, state, pod, m)
	}
	res, st := f.Framework.RunPostFilterPlugins(ctx, state, pod, m)
	nominated := ""
	if st.IsSuccess() && res != nil && res.NominatingInfo != nil {
		nominated = res.NominatingInfo.NominatedNodeName
	}
	if nominated != "" {
		// An asynchronous preemption goroutine deletes the victims (SchedulerAsyncPreemption):
		// settle waits for it, unless no victim needs an API call.
		if dry == nil || dry.needsAPICall(nominated) {
			atomic.AddInt64(&f.w.preemptionsStarted, 1)
		}
		if f.pe != nil && dry != nil {
			f.pe.after(pod, dry, nominated)
		}
	}
	return res, st
}

// permitted follows RunPermitPlugins (release_*.go): a Success (or Wait) means the binding
// cycle goroutine starts.
func (f *observedFramework) permitted(pod *v1.Pod, st *fwk.Status) {
	if st.IsSuccess() || st.IsWait() {
		f.w.mu.Lock()
		f.w.bindingInProgress[string(pod.UID)] = true
		f.w.bindingPods[string(pod.UID)] = pod
		f.w.mu.Unlock()
	}
}

// RunPostBindPlugins: the last step of a successful binding cycle.
func (f *observedFramework) RunPostBindPlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) {
	f.Framework.RunPostBindPlugins(ctx, state, pod, nodeName)
	f.w.mu.Lock()
	delete(f.w.bindingInProgress, string(pod.UID))
	delete(f.w.bindingPods, string(pod.UID))
	f.w.mu.Unlock()
}

// observe installs the wrappers on the scheduler.
func (w *world) observe(pe bool) {
	for name, prof := range w.sched.Profiles {
		of := &observedFramework{Framework: prof, w: w}
		if pe {
			of.pe = newPreemptionNotes(w, prof)
		}
		w.sched.Profiles[name] = of
	}
	w.observeNext()
	w.observeSchedulePod()
	fail := w.sched.FailureHandler
	w.sched.FailureHandler = func(ctx context.Context, fw framework.Framework, podInfo *framework.QueuedPodInfo, status *fwk.Status, nominatingInfo *nominatingInfo, start time.Time) {
		if w.rec != nil {
			w.rec.failed(w, podInfo, status, nominatingInfo)
		}
		fail(ctx, fw, podInfo, status, nominatingInfo, start)
		w.mu.Lock()
		delete(w.bindingInProgress, string(podInfo.Pod.UID))
		delete(w.bindingPods, string(podInfo.Pod.UID))
		w.mu.Unlock()
	}
}

// attempt decides whether the popped pod is attempted (NextEntity or NextPod, release_*.go):
// not when single pass or the per-pod attempt limit says no; then the pod leaves the queue as if
// its scheduling cycle ended without requeueing.
func (w *world) attempt(qpi *framework.QueuedPodInfo) bool {
	if w.rec == nil || qpi == nil || qpi.Pod == nil || w.rec.popped(qpi) {
		return true
	}
	w.sched.SchedulingQueue.Done(qpi.Pod.UID)
	return false
}

// scheduledPod follows SchedulePod (release_*.go): the algorithm's result for the attempt.
func (w *world) scheduledPod(pod *v1.Pod, res scheduler.ScheduleResult, err error) {
	if err == nil && w.rec != nil {
		w.rec.scheduled(pod, res.EvaluatedNodes, res.FeasibleNodes)
	}
}

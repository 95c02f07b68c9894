package main

// Mode simulate: schedule every pending pod with the real scheduler and record every attempt.

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// maxAttempts bounds a run (the Python simulation's limit too).
const maxAttempts = 1000000

type simOptions struct {
	seed              int64
	until             *time.Duration
	singlePass        bool
	maxAttemptsPerPod int
	timeout           time.Duration
	settleTimeout     time.Duration
	preemptionNotes   bool
	parallelism       int // scheduler.WithParallelism; 0 means 1
}

type attempt struct {
	Pod           string              `json:"pod"`
	Outcome       string              `json:"outcome"`
	Node          *string             `json:"node"`
	Reasons       map[string][]string `json:"reasons"`
	Message       string              `json:"message"`
	NominatedNode *string             `json:"nominatedNode"`
	Candidates    []string            `json:"candidates"`
	Victims       []string            `json:"victims"`
	// EvaluatedNodes and FeasibleNodes: upstream's ScheduleResult for a bound pod; for a
	// FitError the nodes with a failure status, and 0.
	EvaluatedNodes int `json:"evaluatedNodes"`
	FeasibleNodes  int `json:"feasibleNodes"`
	// Time is the virtual time of the attempt in seconds, Attempt the pod's attempt number
	// (QueuedPodInfo.Attempts; 0 for a Gated record) and Queue the queue it was popped from.
	Time    float64 `json:"time"`
	Attempt int     `json:"attempt"`
	Queue   *string `json:"queue"`
}

type simulationResult struct {
	APIVersion      string            `json:"apiVersion"`
	Kind            string            `json:"kind"`
	UpstreamRelease string            `json:"upstreamRelease"`
	Seed            int64             `json:"seed"`
	Attempts        []*attempt        `json:"attempts"`
	Bindings        map[string]string `json:"bindings"`
	Pending         []string          `json:"pending"`
	Deleted         []string          `json:"deleted"`
	EndTime         float64           `json:"endTime"`
	StoppedBy       string            `json:"stoppedBy,omitempty"`
	Removed         []string          `json:"removed"`
	Finished        []string          `json:"finished"`
	Timeline        []timelineEntry   `json:"timeline"`
	// ResourceClaims: per bound pod with spec.resourceClaims, its claims' allocations (dra.go).
	ResourceClaims map[string][]podClaimResult `json:"resourceClaims,omitempty"`
	// ExtendedResourceClaimStatus: per bound pod, its status.extendedResourceClaimStatus when
	// PreBind patched it (dra.go).
	ExtendedResourceClaimStatus map[string]*v1.PodExtendedResourceClaimStatus `json:"extendedResourceClaimStatus,omitempty"`
	// PersistentVolumeClaims: every claim at the end of the run (storage.go); omitted when none.
	PersistentVolumeClaims []claimResult `json:"persistentVolumeClaims,omitempty"`
	// Notes: where upstream's behaviour was random or the run was cut short. Not part of the
	// SimulationResult schema: only with --notes (always printed to stderr).
	Notes []string `json:"notes,omitempty"`
	// Warnings: what the loader ignored (kinds it does not model, terminal pods). Not part of
	// the SimulationResult schema: only in serve answers that ask for notes.
	Warnings []string `json:"warnings,omitempty"`
}

func newAttempt(pod, outcome string) *attempt {
	return &attempt{Pod: pod, Outcome: outcome, Reasons: map[string][]string{}, Candidates: []string{}, Victims: []string{}}
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// recorder turns what the scheduler does into attempts.
type recorder struct {
	mu       sync.Mutex
	opts     simOptions
	attempts []*attempt
	cur      *attempt
	curScore []nodePluginScores
	tries    map[string]int
	bindings map[string]string
	deleted  []string
	// victims: the pods the preemption deleted whose claims the resourceclaim controller has
	// not released yet (releaseVictimClaims).
	victims  []*v1.Pod
	dropped  map[string]bool
	inActive map[string]bool // the pods in activeQ before the current ScheduleOne
	// seen is the cluster version when a pod was last tried (or found gated).
	seen     map[string]int64
	gateMsgs map[string]string // the last Gated record's message per pod
	deleteAs string            // "removed"/"finished" while a timeline event deletes pods
	removed  []string
	finished []string
	timeline []timelineEntry
	// justBound: the pods the scheduler bound since the last takeBound (triggers).
	justBound []string
	w         *world
}

// takeBound returns (and forgets) the pods the scheduler bound since the last call.
func (r *recorder) takeBound() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.justBound
	r.justBound = nil
	return out
}

// gated records a pod that a PreEnqueue plugin holds back, when the verdict is new.
func (r *recorder) gated(qpi *framework.QueuedPodInfo, msg string, version int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := podKey(qpi.Pod)
	r.seen[key] = version
	if prev, ok := r.gateMsgs[key]; ok && prev == msg {
		return
	}
	r.gateMsgs[key] = msg
	a := newAttempt(key, "Gated")
	a.Message = msg
	a.Attempt = qpi.Attempts
	a.Time = virtualSeconds(r.w.clock.Now())
	r.attempts = append(r.attempts, a)
}

// popped is called when the scheduling queue hands a pod to ScheduleOne; false means the pod is
// not attempted (single pass, or the per-pod attempt limit).
func (r *recorder) popped(qpi *framework.QueuedPodInfo) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := podKey(qpi.Pod)
	r.tries[key]++
	limit := r.opts.maxAttemptsPerPod
	if r.opts.singlePass {
		limit = 1
	}
	if limit > 0 && r.tries[key] > limit {
		if !r.dropped[key] && !r.opts.singlePass {
			r.w.note(fmt.Sprintf("%s: not attempted again after %d attempts (per-pod attempt limit)", key, limit))
		}
		r.dropped[key] = true
		return false
	}
	delete(r.gateMsgs, key)
	r.cur = newAttempt(key, "")
	r.cur.Attempt = qpi.Attempts
	r.cur.Time = virtualSeconds(r.w.clock.Now())
	r.seen[key] = atomic.LoadInt64(&r.w.version)
	q := "backoffQ"
	if r.inActive[string(qpi.Pod.UID)] {
		q = "activeQ"
	}
	r.cur.Queue = &q
	r.curScore = nil
	return true
}

// endStep closes the attempt of the last ScheduleOne (dropped if the scheduler skipped the pod).
func (r *recorder) endStep() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil && r.cur.Outcome != "" {
		r.attempts = append(r.attempts, r.cur)
	}
	r.cur = nil
}

// scheduled records the scheduling algorithm's result (SchedulePod) of the current attempt.
func (r *recorder) scheduled(pod *v1.Pod, evaluated, feasible int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil && r.cur.Pod == podKey(pod) {
		r.cur.EvaluatedNodes, r.cur.FeasibleNodes = evaluated, feasible
	}
}

func (r *recorder) scored(pod *v1.Pod, ns []nodePluginScores) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil && r.cur.Pod == podKey(pod) {
		r.curScore = ns
	}
}

func (r *recorder) bound(key, node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bindings[key] = node
	r.justBound = append(r.justBound, key)
	if r.cur == nil || r.cur.Pod != key {
		return
	}
	r.cur.Outcome = "Bound"
	r.cur.Node = strPtr(node)
	r.cur.Candidates = []string{node}
	if len(r.curScore) > 0 {
		best := r.curScore[0].TotalScore
		for _, s := range r.curScore {
			if s.TotalScore > best {
				best = s.TotalScore
			}
		}
		r.cur.Candidates = r.cur.Candidates[:0]
		for _, s := range r.curScore {
			if s.TotalScore == best {
				r.cur.Candidates = append(r.cur.Candidates, s.Name)
			}
		}
	}
}

// releaseVictimClaims does the resourceclaim controller's cleanup (releasePodClaims) for the
// claims of the pods the preemption deleted, once the attempt and the deletes have settled: the
// scheduler sees each victim's delete, then its claims' updates and deletes, as after a
// timeline deletePod (the reference's Simulation._release_claims after the attempt).
func (w *world) releaseVictimClaims() error {
	w.rec.mu.Lock()
	victims := w.rec.victims
	w.rec.victims = nil
	w.rec.mu.Unlock()
	for _, p := range victims {
		if len(podResourceClaimNames(p)) == 0 {
			continue
		}
		wrote, err := w.releasePodClaims(p)
		if err != nil {
			return fmt.Errorf("releasing the claims of victim %s: %v", podKey(p), err)
		}
		if wrote {
			if err := w.settle(); err != nil {
				return err
			}
		}
	}
	return nil
}

// podDeleted records a pod's delete (p: the pod as it was, nil if unknown).
func (r *recorder) podDeleted(key string, p *v1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.bindings, key)
	switch r.deleteAs {
	case "removed":
		r.removed = append(r.removed, key)
	case "finished":
		r.finished = append(r.finished, key)
	default: // only preemption deletes pods otherwise
		r.deleted = append(r.deleted, key)
		if p != nil {
			r.victims = append(r.victims, p)
		}
		if r.cur != nil {
			r.cur.Victims = append(r.cur.Victims, key)
		}
	}
}

// failed records the failure handler's view: the status (a FitError for unschedulable pods)
// and the nomination upstream applies to the pod.
func (r *recorder) failed(w *world, podInfo *framework.QueuedPodInfo, status *fwk.Status, ni *nominatingInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := podKey(podInfo.Pod)
	if r.cur == nil || r.cur.Pod != key {
		return
	}
	if status.IsRejected() {
		r.cur.Outcome = "Unschedulable"
		if ni != nil && ni.Mode() == modeOverride && ni.NominatedNodeName != "" {
			// Unschedulable now, and preemption nominated a node (the schema's "Nominated").
			r.cur.Outcome = "Nominated"
		}
	} else {
		r.cur.Outcome = "Error"
	}
	r.cur.Node = nil
	r.cur.Message = status.Message()
	r.cur.Candidates = []string{}
	r.cur.EvaluatedNodes, r.cur.FeasibleNodes = 0, 0
	if fe, ok := status.AsError().(*framework.FitError); ok {
		r.cur.EvaluatedNodes = fe.Diagnosis.NodeToStatus.Len()
		explicit := map[string]bool{}
		fe.Diagnosis.NodeToStatus.ForEachExplicitNode(func(name string, st *fwk.Status) {
			explicit[name] = true
			r.cur.Reasons[name] = nonNil(st.Reasons())
		})
		if fe.Diagnosis.PreFilterMsg != "" {
			if nodes, err := w.snapshot.NodeInfos().List(); err == nil {
				for _, n := range nodes {
					if name := n.Node().Name; !explicit[name] {
						r.cur.Reasons[name] = nonNil(fe.Diagnosis.NodeToStatus.AbsentNodesStatus().Reasons())
					}
				}
			}
		}
	}
	nnn := podInfo.Pod.Status.NominatedNodeName
	if ni != nil && ni.Mode() == modeOverride {
		nnn = ni.NominatedNodeName
	}
	r.cur.NominatedNode = strPtr(nnn)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// creationOrder sorts pods by creationTimestamp (missing = earliest), then input order: the order
// the reference queues equal-priority pods in.
func creationOrder(pods []*v1.Pod) []*v1.Pod {
	out := append([]*v1.Pod(nil), pods...)
	ts := func(p *v1.Pod) int64 {
		if p.CreationTimestamp.IsZero() {
			return 0
		}
		return p.CreationTimestamp.UnixNano()
	}
	sort.SliceStable(out, func(i, j int) bool { return ts(out[i]) < ts(out[j]) })
	return out
}

func simulate(cl *Cluster, cfg *schedconfig.KubeSchedulerConfiguration, opts simOptions) (*simulationResult, error) {
	parallelism := opts.parallelism
	if parallelism < 1 {
		parallelism = 1
	}
	w, err := newWorld(cl, cfg, opts.settleTimeout, parallelism)
	if err != nil {
		return nil, err
	}
	defer w.close()
	rec := &recorder{opts: opts, tries: map[string]int{}, bindings: map[string]string{}, dropped: map[string]bool{},
		seen: map[string]int64{}, gateMsgs: map[string]string{}, w: w}
	w.rec = rec
	if w.batches, err = batchAges(w.sched.Profiles); err != nil {
		return nil, err
	}
	w.observe(opts.preemptionNotes)

	if err := w.addNodesAndRunningPods(cl); err != nil {
		return nil, err
	}
	var pending []*v1.Pod
	for _, p := range cl.Pods {
		if p.Spec.NodeName != "" {
			rec.bindings[podKey(p)] = p.Spec.NodeName
		} else {
			pending = append(pending, p)
		}
	}
	// Pending pods are queued just before virtual time 0, a nanosecond apart in creation order:
	// PrioritySort orders equal priorities by the time a pod entered the queue.
	ordered := creationOrder(pending)
	for i, p := range ordered {
		if err := w.addPendingPod(p, clockStart.Add(-time.Duration(len(ordered)-i))); err != nil {
			return nil, err
		}
		if !w.responsible(p) {
			continue
		}
		w.recordGated()
	}
	w.clock.SetTime(clockStart)

	var events []tlEvent
	var until *time.Time
	fired := map[int]bool{} // the triggered events applied (by index)
	// applyEvent applies one timeline event at virtual time now and records it.
	applyEvent := func(ev tlEvent, now time.Time) error {
		w.clock.Step(time.Nanosecond) // pods created by events queue in event order
		result, err := w.apply(ev)
		if err != nil {
			return fmt.Errorf("timeline event %d (%s %s): %v", ev.index, ev.action, ev.target, err)
		}
		if result == "" {
			result = "applied"
			atomic.AddInt64(&w.version, 1)
		}
		rec.mu.Lock()
		rec.timeline = append(rec.timeline, timelineEntry{Time: virtualSeconds(now), Index: ev.index, Action: ev.action, Target: ev.target, Result: result})
		rec.mu.Unlock()
		if err := w.settle(); err != nil {
			return err
		}
		w.recordGated()
		return nil
	}
	// fireTriggers applies the events the bindings of the last ScheduleOne trigger (when:
	// {podBound: ...}): once each, right after that attempt, before the next pop, in
	// document order (the reference's Simulation._fire_triggers).
	fireTriggers := func(now time.Time) error {
		if cl.Timeline == nil {
			rec.takeBound()
			return nil
		}
		for _, key := range rec.takeBound() {
			for _, ev := range cl.Timeline.triggeredBy(key) {
				if fired[ev.index] {
					continue
				}
				fired[ev.index] = true
				if err := applyEvent(ev, now); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if cl.Timeline != nil {
		events = cl.Timeline.events
		if cl.Timeline.until != nil {
			t := clockStart.Add(*cl.Timeline.until)
			until = &t
		}
	}
	if opts.until != nil {
		t := clockStart.Add(*opts.until)
		until = &t
	}
	deadline := time.Now().Add(opts.timeout)
	stoppedBy := "quiescence"
	ei := 0
run:
	for {
		now := w.clock.Now()
		// Timeline events due now, in order; then the queue's timers; then schedule.
		for ei < len(events) && !clockStart.Add(events[ei].at).After(now) {
			ev := events[ei]
			ei++
			if err := applyEvent(ev, now); err != nil {
				return nil, err
			}
		}
		w.flushQueue(now)
		if err := w.settle(); err != nil {
			return nil, err
		}
		w.recordGated()
		// Schedule every pod the queue can hand out now.
		for {
			if err := w.settle(); err != nil {
				return nil, err
			}
			if !w.poppable() {
				break
			}
			if time.Now().After(deadline) {
				w.note(fmt.Sprintf("stopped after the timeout of %v with pods still in the active or backoff queue", opts.timeout))
				stoppedBy = ""
				break run
			}
			if len(rec.attempts) >= maxAttempts {
				w.note(fmt.Sprintf("stopped after %d attempts: the simulation did not settle", maxAttempts))
				stoppedBy = ""
				break run
			}
			rec.mu.Lock()
			rec.inActive = map[string]bool{}
			for _, p := range w.sched.SchedulingQueue.PodsInActiveQ() {
				rec.inActive[string(p.UID)] = true
			}
			rec.mu.Unlock()
			// A nanosecond per attempt: upstream's clock moves between two failures, so the
			// queue timestamps (PrioritySort's tie-break) follow the order of the attempts.
			w.clock.Step(time.Nanosecond)
			if err := w.scheduleOne(now); err != nil {
				return nil, err
			}
			if err := w.settle(); err != nil {
				return nil, err
			}
			if err := w.releaseVictimClaims(); err != nil {
				return nil, err
			}
			rec.endStep()
			w.recordGated()
			if err := fireTriggers(now); err != nil {
				return nil, err
			}
		}
		// Nothing to pop: move the virtual clock to the next event or queue timer, or stop.
		var nextEvent *time.Time
		if ei < len(events) {
			t := clockStart.Add(events[ei].at)
			nextEvent = &t
		}
		next, ok := w.nextTime(rec, nextEvent)
		if !ok {
			break
		}
		if until != nil && next.After(*until) {
			if until.After(now) {
				w.clock.SetTime(*until)
			}
			stoppedBy = "until"
			break
		}
		w.clock.SetTime(next)
	}
	if n := len(w.sched.SchedulingQueue.PodsInBackoffQ()); n > 0 && stoppedBy == "" {
		w.note(fmt.Sprintf("%d pod(s) left in the backoff queue", n))
	}

	res := &simulationResult{
		APIVersion: "kschedconf/v1", Kind: "SimulationResult", UpstreamRelease: upstreamRelease,
		Seed: opts.seed, Attempts: rec.attempts, Bindings: rec.bindings, Pending: []string{}, Deleted: []string{},
		StoppedBy: stoppedBy, EndTime: virtualSeconds(w.clock.Now()),
		Removed: sortedCopy(rec.removed), Finished: sortedCopy(rec.finished), Timeline: rec.timeline,
	}
	if res.Timeline == nil {
		res.Timeline = []timelineEntry{}
	}
	if res.Attempts == nil {
		res.Attempts = []*attempt{}
	}
	list, err := w.tracker.List(podsGVR, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, metav1.NamespaceAll)
	if err != nil {
		return nil, err
	}
	for _, p := range list.(*v1.PodList).Items {
		if p.Spec.NodeName == "" {
			res.Pending = append(res.Pending, podKey(&p))
		}
	}
	sort.Strings(res.Pending)
	seen := map[string]bool{}
	for _, k := range rec.deleted {
		if !seen[k] {
			seen[k] = true
			res.Deleted = append(res.Deleted, k)
		}
	}
	sort.Strings(res.Deleted)
	if res.ResourceClaims, err = w.claimResults(res.Bindings); err != nil {
		return nil, err
	}
	if res.ExtendedResourceClaimStatus, err = w.extendedClaimStatuses(res.Bindings); err != nil {
		return nil, err
	}
	if res.PersistentVolumeClaims, err = w.persistentVolumeClaimResults(); err != nil {
		return nil, err
	}
	res.Notes = w.notes
	return res, nil
}

// preEnqueueMessage runs the profile's PreEnqueue plugins (the instances the queue uses) and
// returns the first rejection's message, as the reference reports a gated pod.
func (w *world) preEnqueueMessage(p *v1.Pod) string {
	prof, ok := w.sched.Profiles[p.Spec.SchedulerName]
	if !ok {
		return ""
	}
	for _, pl := range prof.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(w.ctx, p); !st.IsSuccess() {
			return st.Message()
		}
	}
	return ""
}

// poppable reports whether the scheduling queue's Pop would return a pod now: one is in activeQ,
// or in the backoff heap of unschedulable pods (SchedulerPopFromBackoffQ pops from it when
// activeQ is empty). Pods that failed with an error wait in a separate error-backoff heap that
// Pop does not take from; they leave it only when their backoff expires on the clock.
func (w *world) poppable() bool {
	q := w.sched.SchedulingQueue
	if len(q.PodsInActiveQ()) > 0 {
		return true
	}
	for _, p := range q.PodsInBackoffQ() {
		if qpi, ok := queuedPod(q, p); ok {
			if qpi.GetUnschedulablePlugins().Len() > 0 || qpi.GetPendingPlugins().Len() > 0 {
				return true
			}
		}
	}
	return false
}

// virtualSeconds is the virtual time of t: seconds since clockStart (0 before it), to the
// microsecond (the nanosecond steps between attempts do not show).
func virtualSeconds(t time.Time) float64 {
	d := t.Sub(clockStart)
	if d < 0 {
		return 0
	}
	return d.Round(time.Microsecond).Seconds()
}

// Timers of the scheduling queue, on virtual time (PriorityQueue.Run in upstream runs them on
// the clock: the backoff flush every whole second, the unschedulable-pods flush every 30 s).
const (
	backoffFlushInterval       = time.Second
	unschedulableFlushInterval = 30 * time.Second
)

// nextTick is the first multiple of interval (since clockStart) strictly after t and after now.
func nextTick(t, now time.Time, interval time.Duration) time.Time {
	k := t.Sub(clockStart)/interval + 1
	if kn := now.Sub(clockStart)/interval + 1; kn > k {
		k = kn
	}
	return clockStart.Add(k * interval)
}

// nextTime is when the next queue timer can move a pod, or false at quiescence: no queued pod
// was last tried before the latest cluster change (a retry would fail the same way), except
// pods held by SchedulingGates (only their own update releases them).
func (w *world) nextTime(rec *recorder, nextEvent *time.Time) (time.Time, bool) {
	q := w.sched.SchedulingQueue
	version := atomic.LoadInt64(&w.version)
	now := w.clock.Now()
	var queued []*framework.QueuedPodInfo
	for _, p := range append(q.PodsInBackoffQ(), q.UnschedulablePods()...) {
		if qpi, ok := queuedPod(q, p); ok {
			queued = append(queued, qpi)
		}
	}
	stale := false
	rec.mu.Lock()
	for _, qpi := range queued {
		key := podKey(qpi.Pod)
		if qpi.GatingPlugin == names.SchedulingGates {
			continue
		}
		if seen, ok := rec.seen[key]; !ok || seen != version {
			stale = true
		}
	}
	rec.mu.Unlock()
	if !stale && nextEvent == nil {
		return time.Time{}, false
	}
	var next time.Time
	consider := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if nextEvent != nil {
		consider(*nextEvent)
	}
	for _, p := range q.PodsInBackoffQ() {
		if qpi, ok := queuedPod(q, p); ok {
			consider(nextTick(qpi.BackoffExpiration, now, backoffFlushInterval))
		}
	}
	for _, p := range q.UnschedulablePods() {
		if qpi, ok := queuedPod(q, p); ok {
			consider(nextTick(lastQueueTime(qpi).Add(internalqueue.DefaultPodMaxInUnschedulablePodsDuration), now, unschedulableFlushInterval))
		}
	}
	return next, !next.IsZero()
}

// flushQueue does at virtual time now what the queue's timers do (flushBackoffQCompleted,
// flushUnschedulableEntitiesLeftover), through the queue's public methods: pods whose backoff
// completed are activated; pods unschedulable for longer than podMaxInUnschedulablePodsDuration
// are moved with the UnschedulableTimeout event.
func (w *world) flushQueue(now time.Time) {
	q := w.sched.SchedulingQueue
	if now.After(clockStart) && now.Sub(clockStart)%backoffFlushInterval == 0 {
		window := now.Truncate(backoffFlushInterval)
		done := map[string]*v1.Pod{}
		for _, p := range q.PodsInBackoffQ() {
			if qpi, ok := queuedPod(q, p); ok && qpi.BackoffExpiration.Before(window) {
				done[podKey(p)] = p
			}
		}
		if len(done) > 0 {
			q.Activate(w.logger, done)
		}
	}
	if now.Sub(clockStart)%unschedulableFlushInterval == 0 {
		due := map[types.UID]bool{}
		for _, p := range q.UnschedulablePods() {
			qpi, ok := queuedPod(q, p)
			if !ok {
				continue
			}
			if now.Sub(lastQueueTime(qpi)) > internalqueue.DefaultPodMaxInUnschedulablePodsDuration {
				markFlushed(qpi, now)
				due[p.UID] = true
			}
		}
		if len(due) > 0 {
			q.MoveAllToActiveOrBackoffQueue(w.logger, framework.EventUnschedulableTimeout, nil, nil,
				func(p *v1.Pod) bool { return due[p.UID] })
		}
	}
}

// recordGated records the pods a PreEnqueue plugin holds back (a Gated record when the
// verdict is new), as the Python side records them when the queue checks them.
func (w *world) recordGated() {
	q := w.sched.SchedulingQueue
	version := atomic.LoadInt64(&w.version)
	for _, p := range q.UnschedulablePods() {
		if !w.responsible(p) {
			continue
		}
		if qpi, ok := queuedPod(q, p); ok && qpi.Gated() {
			w.rec.gated(qpi, w.preEnqueueMessage(qpi.Pod), version)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// scheduleOne runs one ScheduleOne at virtual time now (the loop's, without the nanosecond
// steps); the queue is known to have a pod to pop, so it returns promptly (a watchdog turns a
// blocked Pop into an error instead of a hang). The batch states age on now (batchage.go).
func (w *world) scheduleOne(now time.Time) error {
	for _, a := range w.batches {
		if err := a.before(now, w.settleTimeout); err != nil {
			return err
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.sched.ScheduleOne(w.ctx)
	}()
	select {
	case <-done:
		for _, a := range w.batches {
			a.after(now)
		}
		return nil
	case <-time.After(w.settleTimeout):
		return fmt.Errorf("ScheduleOne did not return within %v", w.settleTimeout)
	}
}

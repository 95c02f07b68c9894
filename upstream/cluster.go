package main

// The world the real scheduler runs in: a fake API server (client-go's fake clientset with an
// object tracker that assigns resourceVersions), the scheduler's informers, and the scheduler
// built by scheduler.New with parallelism 1 and a frozen fake clock.
//
// Everything asynchronous in the scheduler is waited for explicitly before the next step
// (settle): informer event delivery and the scheduler's event handlers, the binding goroutine
// and the asynchronous preemption goroutine. See README.md "How the loop works".

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	testingclock "k8s.io/utils/clock/testing"
)

var (
	podsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

// clockStart is virtual time 0 of the fake clock: the pending pods are queued just before it
// (a nanosecond apart, in queue-timestamp order), the first attempt happens at it. The clock
// moves only when nothing can be scheduled and a timer of the queue is due (simulate.go).
var clockStart = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// world is one fake cluster with one real scheduler.
type world struct {
	ctx    context.Context
	cancel context.CancelFunc
	logger klog.Logger

	cs       *fake.Clientset
	tracker  *rvTracker
	factory  informers.SharedInformerFactory
	sched    *scheduler.Scheduler
	snapshot *internalcache.Snapshot
	clock    *testingclock.FakeClock
	cfg      *schedconfig.KubeSchedulerConfiguration
	profiles map[string]bool

	settleTimeout time.Duration

	// counters for settle (atomic)
	podWrites, nodeWrites int64 // successful writes to the tracker
	podEvents, nodeEvents int64 // informer events seen by our own handlers
	draWrites, draEvents  int64 // the same for the resource.k8s.io objects (dra.go)
	baseDRAObs            uint64
	hasDRA                bool // the cluster has resource.k8s.io objects (else no DRA events)
	// DeviceTaintRules a release before v1.37 ignores, by name (timeline_objects.go)
	unservedRules map[string]bool
	// the same for the PV and PVC writes (storage.go)
	storageWrites, storageEvents int64
	baseStorageObs               uint64
	hasStorage                   bool  // the cluster has storage objects
	expectedObs                  int64 // scheduler event-handler completions the events imply
	baseObs                      uint64
	basePreemptDone              float64
	preemptionsStarted           int64
	// version counts the cluster changes the informers delivered (pods added, bound, deleted or
	// re-nominated; nodes added, changed, deleted): a queued pod last tried before the latest
	// change may fare differently on a retry.
	version int64

	mu                sync.Mutex
	bindingInProgress map[string]bool    // pod UIDs between Permit and the end of the binding cycle
	bindingPods       map[string]*v1.Pod // the same pods, as Permit saw them (spec.nodeName set)
	generated         map[string]int     // generateName counters (generatename.go)
	batches           []*batchAge        // the profiles' batch states on virtual time (batchage.go)
	volumeWrites      volumeWrites       // the binding pod's PV/PVC writes (storage.go)
	watching          map[schema.GroupVersionResource]bool
	rec               *recorder // set in simulate mode
	notes             []string
}

// rvTracker is the fake API server's object store. Unlike the plain tracker it stores a
// resourceVersion in every object it writes (the scheduler ignores pod updates with an unchanged
// resourceVersion), and it reports writes to the world.
type rvTracker struct {
	clienttesting.ObjectTracker
	w  *world
	rv int64
	// updateMu makes an Update's resourceVersion check and its write one step
	updateMu sync.Mutex
}

func (t *rvTracker) stamp(obj runtime.Object) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(strconv.FormatInt(atomic.AddInt64(&t.rv, 1), 10))
	}
}

func (t *rvTracker) counted(gvr schema.GroupVersionResource, err error) error {
	if err == nil {
		switch gvr {
		case podsGVR:
			atomic.AddInt64(&t.w.podWrites, 1)
		case nodesGVR:
			atomic.AddInt64(&t.w.nodeWrites, 1)
		default:
			if isDRAGVR(gvr) {
				atomic.AddInt64(&t.w.draWrites, 1)
			} else if isStorageGVR(gvr) {
				atomic.AddInt64(&t.w.storageWrites, 1)
			}
		}
	}
	return err
}

func gvrOf(obj runtime.Object) schema.GroupVersionResource {
	switch obj.(type) {
	case *v1.Pod:
		return podsGVR
	case *v1.Node:
		return nodesGVR
	case *resourceapi.ResourceClaim:
		return claimsGVR
	case *resourceapi.ResourceSlice:
		return slicesGVR
	case *resourceapi.DeviceClass:
		return deviceClassesGVR
	case *v1.PersistentVolume:
		return pvGVR
	case *v1.PersistentVolumeClaim:
		return pvcGVR
	}
	return schema.GroupVersionResource{}
}

func (t *rvTracker) Add(obj runtime.Object) error {
	t.stamp(obj)
	return t.counted(gvrOf(obj), t.ObjectTracker.Add(obj))
}

func (t *rvTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	t.stamp(obj)
	return t.counted(gvr, t.ObjectTracker.Create(gvr, obj, ns, opts...))
}

// Update refuses, as the API server does, an object whose resourceVersion is set and is not the
// stored one (optimistic concurrency): a client writing back a stale copy gets a Conflict
// instead of silently overwriting what was written since. DynamicResources' PreBind relies on
// it (bindClaim's RetryOnConflict, dynamicresources.go).
func (t *rvTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	t.updateMu.Lock()
	defer t.updateMu.Unlock()
	if m, err := meta.Accessor(obj); err == nil && m.GetResourceVersion() != "" {
		if cur, err := t.ObjectTracker.Get(gvr, ns, m.GetName()); err == nil {
			if cm, err := meta.Accessor(cur); err == nil && cm.GetResourceVersion() != m.GetResourceVersion() {
				return apierrors.NewConflict(gvr.GroupResource(), m.GetName(),
					fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
			}
		}
	}
	if isStorageGVR(gvr) && t.unchanged(gvr, obj, ns) {
		return nil
	}
	t.stamp(obj)
	return t.counted(gvr, t.ObjectTracker.Update(gvr, obj, ns, opts...))
}

func (t *rvTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	t.stamp(obj)
	return t.counted(gvr, t.ObjectTracker.Patch(gvr, obj, ns, opts...))
}

func (t *rvTracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	var pod *v1.Pod
	if gvr == podsGVR {
		if obj, err := t.ObjectTracker.Get(gvr, ns, name); err == nil {
			pod, _ = obj.(*v1.Pod)
		}
	}
	err := t.counted(gvr, t.ObjectTracker.Delete(gvr, ns, name, opts...))
	if err == nil && gvr == podsGVR && t.w.rec != nil {
		t.w.rec.podDeleted(ns+"/"+name, pod)
	}
	return err
}

// nopRecorder is the scheduler's event recorder: events are not needed (the attempts are
// recorded from the failure handler and the binding reactor).
type nopRecorder struct{}

func (nopRecorder) Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...interface{}) {
}
func (r nopRecorder) WithLogger(klog.Logger) events.EventRecorderLogger { return r }

// newWorld builds the fake API server with the cluster's namespaces, priority classes, PDBs,
// Services and controllers, the scheduler (not yet fed with nodes and pods), and starts the
// informers. parallelism is the scheduler's (scheduler.WithParallelism: the workers of the
// Filter and Score loops); the harness always uses 1, bench/scheduler_perf.py also upstream's
// default 16 (pkg/scheduler/apis/config/v1/defaults.go, DefaultParallelism).
func newWorld(cl *Cluster, cfg *schedconfig.KubeSchedulerConfiguration, settleTimeout time.Duration, parallelism int) (*world, error) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &world{
		ctx: ctx, cancel: cancel, logger: klog.FromContext(ctx),
		cfg: cfg, settleTimeout: settleTimeout,
		bindingInProgress: map[string]bool{},
		bindingPods:       map[string]*v1.Pod{},
		generated:         map[string]int{},
		watching:          map[schema.GroupVersionResource]bool{},
		profiles:          map[string]bool{},
	}
	for _, p := range cfg.Profiles {
		w.profiles[p.SchedulerName] = true
	}
	// The fake watchers panic when their channel is full (client-go's default is 100 events);
	// a burst of victim deletions or a large batch of nodes must fit (watchChanSize).
	watch.DefaultChanSize = int32(watchChanSize(cl))
	w.tracker = &rvTracker{ObjectTracker: clienttesting.NewObjectTracker(clientgoscheme.Scheme, clientgoscheme.Codecs.UniversalDecoder()), w: w}
	cs := &fake.Clientset{}
	cs.AddReactor("*", "*", clienttesting.ObjectReaction(w.tracker))
	cs.AddWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		wi, err := w.tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		w.mu.Lock()
		w.watching[action.GetResource()] = true
		w.mu.Unlock()
		return true, wi, nil
	})
	cs.PrependReactor("create", "pods", w.bindingReactor)
	cs.PrependReactor("create", "resourceclaims", w.claimCreateReactor)
	cs.PrependReactor("update", "persistentvolumes", w.storageReactor)
	cs.PrependReactor("update", "persistentvolumeclaims", w.storageReactor)
	w.cs = cs

	for _, ns := range cl.Namespaces {
		if err := w.tracker.Add(ns.DeepCopy()); err != nil {
			cancel()
			return nil, err
		}
	}
	for _, pc := range cl.PriorityClasses {
		if err := w.tracker.Add(pc.DeepCopy()); err != nil {
			cancel()
			return nil, err
		}
	}
	for _, pdb := range cl.PDBs {
		if err := w.tracker.Add(pdb.DeepCopy()); err != nil {
			cancel()
			return nil, err
		}
	}
	// Services and controllers: PodTopologySpread's New takes their listers from the informer
	// factory (helper.DefaultSelector), which lists them before the first pod is scheduled.
	var selecting []runtime.Object
	for _, o := range cl.Services {
		selecting = append(selecting, o.DeepCopy())
	}
	for _, o := range cl.RCs {
		selecting = append(selecting, o.DeepCopy())
	}
	for _, o := range cl.ReplicaSets {
		selecting = append(selecting, o.DeepCopy())
	}
	for _, o := range cl.StatefulSets {
		selecting = append(selecting, o.DeepCopy())
	}
	for _, o := range selecting {
		if err := w.tracker.Add(o); err != nil {
			cancel()
			return nil, err
		}
	}
	if err := w.addDRAObjects(cl); err != nil {
		cancel()
		return nil, err
	}
	if err := w.addStorageObjects(cl); err != nil {
		cancel()
		return nil, err
	}

	w.clock = testingclock.NewFakeClock(clockStart)
	w.factory = newInformerFactory(cs)
	percentage := cfg.PercentageOfNodesToScore
	opts := append([]scheduler.Option{
		scheduler.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(percentage),
		scheduler.WithPodInitialBackoffSeconds(cfg.PodInitialBackoffSeconds),
		scheduler.WithPodMaxBackoffSeconds(cfg.PodMaxBackoffSeconds),
		scheduler.WithParallelism(int32(parallelism)),
		scheduler.WithClock(w.clock),
	}, w.snapshotOptions()...)
	sched, err := scheduler.New(ctx, cs, w.factory, nil, nopRecorderFactory(), opts...)
	if err != nil {
		cancel()
		return nil, err
	}
	w.sched = sched
	w.adoptSnapshot()

	// Our own handlers on the same informers: they see every event the scheduler's handlers see
	// and count how many event-handler completions (metric observations) each one implies.
	if _, err := w.factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.onPodAdd,
		UpdateFunc: w.onPodUpdate,
		DeleteFunc: w.onPodDelete,
	}); err != nil {
		cancel()
		return nil, err
	}
	if _, err := w.factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(interface{}) {
			atomic.AddInt64(&w.version, 1)
			atomic.AddInt64(&w.expectedObs, 1)
			atomic.AddInt64(&w.nodeEvents, 1)
		},
		UpdateFunc: func(o, n interface{}) {
			atomic.AddInt64(&w.version, 1)
			atomic.AddInt64(&w.expectedObs, int64(len(framework.NodeSchedulingPropertiesChange(n.(*v1.Node), o.(*v1.Node)))))
			atomic.AddInt64(&w.nodeEvents, 1)
		},
		DeleteFunc: func(interface{}) {
			atomic.AddInt64(&w.version, 1)
			atomic.AddInt64(&w.expectedObs, 1)
			atomic.AddInt64(&w.nodeEvents, 1)
		},
	}); err != nil {
		cancel()
		return nil, err
	}

	if err := w.watchDRA(); err != nil {
		cancel()
		return nil, err
	}
	if err := w.watchStorage(); err != nil {
		cancel()
		return nil, err
	}

	base := eventObservations()
	w.baseObs, w.baseDRAObs, w.baseStorageObs = base.handler, base.dra, base.storage
	w.basePreemptDone = preemptionGoroutinesDone()
	w.factory.Start(ctx.Done())
	if err := w.waitSynced(ctx); err != nil {
		cancel()
		return nil, err
	}
	// The reflectors list, then watch. An object created between the two reaches the informer
	// with the watch's initial events, which the fake API server sends sorted by name: nodes
	// would enter the node tree out of input order. Wait for the watches first.
	deadline := time.Now().Add(settleTimeout)
	for {
		w.mu.Lock()
		ready := w.watching[podsGVR] && w.watching[nodesGVR] && w.watching[pvGVR] && w.watching[pvcGVR]
		w.mu.Unlock()
		if ready {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			return nil, fmt.Errorf("the informers did not start watching within %v", settleTimeout)
		}
		pause(100 * time.Microsecond)
	}
	return w, nil
}

// maxWatchChanSize is the largest buffer of a fake watcher (watchChanSize).
const maxWatchChanSize = 1 << 15

// watchChanSize is the buffer of the fake API server's watchers for a world of cl. A burst of
// events between two settles is a few per object at most: objects are fed in batches (batch),
// a preemption deletes pods that exist, a timeline event changes one object, each settle
// drains the channels. So four per object plus watchChanSlack, at most maxWatchChanSize (what
// every world had: a buffer of 32768 events, about 1 MB per watch and a dozen watches,
// allocated, cleared and scanned by the garbage collector for every request, was about half of
// the Go CPU of a small simulate or explain).
func watchChanSize(cl *Cluster) int {
	n := len(cl.Nodes) + len(cl.Pods) + len(cl.Namespaces) + len(cl.PriorityClasses) +
		len(cl.PDBs) + len(cl.Services) + len(cl.RCs) + len(cl.ReplicaSets) + len(cl.StatefulSets) +
		len(cl.DRA.DeviceClasses) + len(cl.DRA.ResourceSlices) + len(cl.DRA.ResourceClaims) +
		len(cl.DRA.Templates) + len(cl.Storage.Volumes) + len(cl.Storage.Claims) +
		len(cl.Storage.Classes) + len(cl.Storage.CSINodes) + len(cl.Storage.CSIDrivers) +
		len(cl.Storage.Capacities) + len(cl.Storage.Attachments)
	if cl.Timeline != nil {
		n += len(cl.Timeline.events) + len(cl.Timeline.triggered)
	}
	return min(maxWatchChanSize, watchChanSlack+4*n)
}

// watchChanSlack is the part of watchChanSize that does not grow with the cluster. It was 1024:
// 32 KB per watch, a score of watches per world, made and cleared for every request (an empty
// world's simulate: 4.0 ms of CPU; 3.55 ms with 128).
const watchChanSlack = 128

// syncPause is waitSynced's wait between two questions.
const syncPause = 50 * time.Microsecond

// waitSynced waits for what cmd/kube-scheduler/app/server.go Run waits for before scheduling:
// the informers' caches (informerFactory.WaitForCacheSync) and the scheduler's event handlers'
// initial lists (sched.WaitForHandlersSync), without their 100 ms poll period
// (syncedPollPeriod: k8s.io/client-go/tools/cache/shared_informer.go WaitForCacheSync, which the
// factory's WaitForCacheSync calls before client-go v0.37; pkg/scheduler/eventhandlers.go
// WaitForHandlersSync). Both answer at once when synced and otherwise wait a whole period:
// a world is built for every request and syncs within a millisecond, so that period was most
// of a request's time. Each is asked with a context already done, which makes it a single
// check (both poll "immediately": the condition runs once whatever the context;
// k8s.io/apimachinery/pkg/util/wait/loop.go loopConditionUntilContext; since client-go v0.37
// the factory's WaitForCacheSyncWithContext reads HasSynced after its wait), and asked again
// after a pause (syncPause: pause_linux.go) until it says yes or the settle timeout passes;
// the same calls, so the same guarantees.
func (w *world) waitSynced(ctx context.Context) error {
	deadline := time.Now().Add(w.settleTimeout)
	done, cancel := context.WithCancel(ctx)
	cancel()
	for {
		unsynced := ""
		for typ, ok := range w.factory.WaitForCacheSync(done.Done()) {
			if !ok {
				unsynced = fmt.Sprint(typ)
				break
			}
		}
		if unsynced == "" {
			break
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("informer cache for %v did not sync", unsynced)
		}
		pause(syncPause)
	}
	for {
		err := w.sched.WaitForHandlersSync(done)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		pause(syncPause)
	}
}

func (w *world) close() {
	w.sched.SchedulingQueue.Close()
	w.cancel()
}

func (w *world) note(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notes = append(w.notes, s)
}

// ----- expected scheduler event-handler completions (pkg/scheduler/eventhandlers.go) -----
//
// Every pod/node event handler of the scheduler ends with an observation of the
// scheduler_event_handling_duration_seconds histogram; these functions count how many
// observations the scheduler's handlers make for one event, following the handlers' branches
// in v1.37.2 (addPod, updatePod, deletePod, addNodeToCache, ...). When the histogram has at
// least as many observations as the events imply, the scheduler's handlers are done.

func (w *world) responsible(p *v1.Pod) bool { return w.profiles[p.Spec.SchedulerName] }

func (w *world) onPodAdd(obj interface{}) {
	p := obj.(*v1.Pod)
	n := int64(0)
	if p.Spec.NodeName != "" {
		n++
	} else if w.responsible(p) {
		n++
	}
	atomic.AddInt64(&w.version, 1)
	atomic.AddInt64(&w.expectedObs, n)
	atomic.AddInt64(&w.podEvents, 1)
}

func (w *world) onPodUpdate(oldObj, newObj interface{}) {
	oldPod, newPod := oldObj.(*v1.Pod), newObj.(*v1.Pod)
	n := int64(0)
	switch {
	case oldPod.Spec.NodeName != "":
		n = 1 + int64(len(podSchedulingPropertiesChange(newPod, oldPod)))
	case newPod.Spec.NodeName != "":
		n = 1
		if w.responsible(oldPod) {
			n++
		}
	case w.responsible(oldPod):
		if oldPod.ResourceVersion != newPod.ResourceVersion {
			n = 1
			for _, evt := range podSchedulingPropertiesChange(newPod, oldPod) {
				if evt.Label() != framework.EventUnscheduledPodUpdate.Label() {
					n++
				}
			}
		}
	}
	if oldPod.Spec.NodeName != newPod.Spec.NodeName || oldPod.Status.NominatedNodeName != newPod.Status.NominatedNodeName {
		atomic.AddInt64(&w.version, 1)
	}
	atomic.AddInt64(&w.expectedObs, n)
	atomic.AddInt64(&w.podEvents, 1)
}

func (w *world) onPodDelete(obj interface{}) {
	n := int64(0)
	switch t := obj.(type) {
	case *v1.Pod:
		if t.Spec.NodeName != "" || w.responsible(t) {
			n = 1
		}
	case cache.DeletedFinalStateUnknown:
		n = 1
		if p, ok := t.Obj.(*v1.Pod); ok && w.responsible(p) {
			n++
		}
	}
	atomic.AddInt64(&w.version, 1)
	atomic.AddInt64(&w.expectedObs, n)
	atomic.AddInt64(&w.podEvents, 1)
}

// ----- scheduler metrics used as completion signals -----

func collect(c prometheus.Collector) []*dto.Metric {
	ch := make(chan prometheus.Metric, 64)
	go func() { c.Collect(ch); close(ch) }()
	var out []*dto.Metric
	for m := range ch {
		d := &dto.Metric{}
		if err := m.Write(d); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// observations is the scheduler's event-handler completions so far by the kind of their event:
// pods and nodes (handler), the resource.k8s.io objects (dra: dra.go) and the storage objects
// (storage: storage.go), settled apart; from one collection of the histogram (each costs the
// histograms' Write: quiet asks at every poll of settle).
type observations struct{ handler, dra, storage uint64 }

func eventObservations() observations {
	var o observations
	if schedmetrics.EventHandlingLatency == nil || schedmetrics.EventHandlingLatency.HistogramVec == nil {
		return o
	}
	for _, m := range collect(schedmetrics.EventHandlingLatency.HistogramVec) {
		label := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "event" {
				label = l.GetValue()
			}
		}
		n := m.GetHistogram().GetSampleCount()
		switch {
		case isDRAEventLabel(label):
			o.dra += n
		case isStorageEventLabel(label):
			o.storage += n
		default:
			o.handler += n
		}
	}
	return o
}

func bindingGoroutines() float64 {
	if schedmetrics.Goroutines == nil || schedmetrics.Goroutines.GaugeVec == nil {
		return 0
	}
	var total float64
	for _, m := range collect(schedmetrics.Goroutines.GaugeVec) {
		for _, l := range m.GetLabel() {
			if l.GetName() == "operation" && l.GetValue() == schedmetrics.Binding {
				total += m.GetGauge().GetValue()
			}
		}
	}
	return total
}

func preemptionGoroutinesDone() float64 {
	if schedmetrics.PreemptionGoroutinesExecutionTotal == nil || schedmetrics.PreemptionGoroutinesExecutionTotal.CounterVec == nil {
		return 0
	}
	var total float64
	for _, m := range collect(schedmetrics.PreemptionGoroutinesExecutionTotal.CounterVec) {
		total += m.GetCounter().GetValue()
	}
	return total
}

// quiet reports whether nothing asynchronous is pending, and a fingerprint of the counters.
func (w *world) quiet() (bool, [8]int64) {
	// fp[5] and fp[7]: the DRA and storage event-handler completions since the world started
	// (only with such objects: else nothing to wait for), read with the others below.
	fp := [8]int64{atomic.LoadInt64(&w.podWrites), atomic.LoadInt64(&w.nodeWrites), atomic.LoadInt64(&w.expectedObs), atomic.LoadInt64(&w.preemptionsStarted),
		atomic.LoadInt64(&w.draWrites), 0, atomic.LoadInt64(&w.storageWrites), 0}
	if atomic.LoadInt64(&w.podEvents) != fp[0] || atomic.LoadInt64(&w.nodeEvents) != fp[1] || atomic.LoadInt64(&w.draEvents) != fp[4] ||
		atomic.LoadInt64(&w.storageEvents) != fp[6] {
		return false, fp
	}
	obs := eventObservations()
	if w.hasDRA {
		fp[5] = int64(obs.dra - w.baseDRAObs)
	}
	if w.hasStorage {
		fp[7] = int64(obs.storage - w.baseStorageObs)
	}
	if int64(obs.handler-w.baseObs) < fp[2] {
		return false, fp
	}
	w.mu.Lock()
	inBinding := len(w.bindingInProgress)
	w.mu.Unlock()
	if inBinding > 0 || bindingGoroutines() != 0 {
		return false, fp
	}
	if int64(preemptionGoroutinesDone()-w.basePreemptDone) < fp[3] {
		return false, fp
	}
	return true, fp
}

// settle waits until informers, the scheduler's event handlers, binding and preemption
// goroutines are done with everything that happened so far.
func (w *world) settle() error {
	start := time.Now()
	deadline := start.Add(w.settleTimeout)
	for {
		ok, fp := w.quiet()
		if ok {
			// Let any goroutine that was just woken finish, then check nothing moved.
			pause(50 * time.Microsecond)
			ok2, fp2 := w.quiet()
			if ok2 && fp2 == fp {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the scheduler did not settle within %v (pod writes %d/events %d, node writes %d/events %d, handler observations %d/expected %d, bindings in progress %d, binding goroutines %v)",
				w.settleTimeout, fp[0], atomic.LoadInt64(&w.podEvents), fp[1], atomic.LoadInt64(&w.nodeEvents),
				eventObservations().handler-w.baseObs, fp[2], len(w.bindingInProgress), bindingGoroutines())
		}
		if time.Since(start) < 10*time.Millisecond {
			pause(20 * time.Microsecond) // pause_linux.go: time.Sleep would wait 1.1 ms
		} else {
			// a long wait (VolumeBinding's PreBind polls once a second of real time): no busy loop
			time.Sleep(time.Millisecond)
		}
	}
}

// ----- the fake API server's pods/binding subresource -----

// bindingReactor implements POST pods/binding like the API server's BindingREST: the pod must
// exist and not be bound yet; it gets spec.nodeName and the PodScheduled=True condition.
func (w *world) bindingReactor(action clienttesting.Action) (bool, runtime.Object, error) {
	ca, ok := action.(clienttesting.CreateActionImpl)
	if !ok || ca.GetSubresource() != "binding" {
		return false, nil, nil
	}
	binding, ok := ca.GetObject().(*v1.Binding)
	if !ok {
		return true, nil, fmt.Errorf("binding: unexpected object %T", ca.GetObject())
	}
	ns := ca.GetNamespace()
	if ns == "" {
		ns = binding.Namespace
	}
	obj, err := w.tracker.Get(podsGVR, ns, binding.Name)
	if err != nil {
		return true, nil, err
	}
	pod := obj.(*v1.Pod).DeepCopy()
	if binding.UID != "" && pod.UID != binding.UID {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, binding.Name, fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", binding.UID, pod.UID))
	}
	if pod.Spec.NodeName != "" {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, binding.Name, fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName))
	}
	pod.Spec.NodeName = binding.Target.Name
	setCondition(&pod.Status, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue})
	if err := w.tracker.Update(podsGVR, pod, ns); err != nil {
		return true, nil, err
	}
	if w.rec != nil {
		w.rec.bound(podKey(pod), binding.Target.Name)
	}
	return true, binding, nil
}

func setCondition(status *v1.PodStatus, c v1.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			status.Conditions[i].Status = c.Status
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}

// ----- feeding the cluster -----

// batch is the number of objects created between two settles. The fake API server's watch
// channels are buffered (watch.DefaultChanSize, raised in newWorld) and panic when full.
const batch = 1000

// addNodesAndRunningPods creates the nodes, then the pods bound to a node, in input order
// through the API (so that the scheduler's cache sees them in that order: the node order of
// the node tree follows the order nodes are added).
func (w *world) addNodesAndRunningPods(cl *Cluster) error {
	for i, n := range cl.Nodes {
		if err := w.tracker.Create(nodesGVR, n.DeepCopy(), ""); err != nil {
			return fmt.Errorf("node %s: %v", n.Name, err)
		}
		if (i+1)%batch == 0 {
			if err := w.settle(); err != nil {
				return err
			}
		}
	}
	if err := w.settle(); err != nil {
		return err
	}
	k := 0
	for _, p := range cl.Pods {
		if p.Spec.NodeName == "" {
			continue
		}
		if err := w.tracker.Create(podsGVR, p.DeepCopy(), p.Namespace); err != nil {
			return fmt.Errorf("pod %s: %v", podKey(p), err)
		}
		k++
		if k%batch == 0 {
			if err := w.settle(); err != nil {
				return err
			}
		}
	}
	return w.settle()
}

// addPendingPod creates one pending pod with the fake clock at the given time: the scheduling
// queue stamps the pod with the clock when it is added, and PrioritySort orders equal priorities
// by that stamp.
func (w *world) addPendingPod(p *v1.Pod, at time.Time) error {
	w.clock.SetTime(at)
	if err := w.tracker.Create(podsGVR, p.DeepCopy(), p.Namespace); err != nil {
		return fmt.Errorf("pod %s: %v", podKey(p), err)
	}
	return w.settle()
}

// updateSnapshot refreshes the scheduler's snapshot from its cache (as a scheduling cycle does).
func (w *world) updateSnapshot() error {
	return w.sched.Cache.UpdateSnapshot(w.logger, w.snapshot)
}

package main

// Mode explain: every plugin's verdict and score for one pending pod, from upstream's plugins.
//
// The cluster is set up as in simulate (nothing is scheduled). A second framework is built from
// the pod's profile with frameworkruntime.NewFramework over the scheduler's snapshot, sharing the
// scheduler's informers, DRA/CSI managers and nominator; its registry is the in-tree registry
// whose factories also hand us the plugin instances, so each PreFilter and Filter plugin can be
// asked on its own. The verdict is upstream's algorithm itself: the scheduler's SchedulePod
// (schedulePod: findNodesThatFitPod from nextStartNodeIndex 0, prioritizeNodes, selectHost)
// run with that framework.

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"strings"
)

type verdict struct {
	Plugin  string   `json:"plugin"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons"`
}

type pluginScore struct {
	Plugin     string `json:"plugin"`
	Raw        int64  `json:"raw"`
	Normalized int64  `json:"normalized"`
	Weight     int64  `json:"weight"`
	Weighted   int64  `json:"weighted"`
}

type nodeExplanation struct {
	Name     string        `json:"name"`
	Feasible bool          `json:"feasible"`
	Examined bool          `json:"examined"`
	Filters  []verdict     `json:"filters"`
	Scores   []pluginScore `json:"scores"`
	Total    *int64        `json:"total"`
}

type explanation struct {
	APIVersion      string            `json:"apiVersion"`
	Kind            string            `json:"kind"`
	UpstreamRelease string            `json:"upstreamRelease"`
	Pod             string            `json:"pod"`
	PreFilter       []verdict         `json:"preFilter"`
	Nodes           []nodeExplanation `json:"nodes"`
	Candidates      []string          `json:"candidates"`
	Selected        *string           `json:"selected"`
	Shortcut        bool              `json:"shortcut"`
	EvaluatedNodes  int               `json:"evaluatedNodes"`
	FeasibleNodes   int               `json:"feasibleNodes"`
	Message         string            `json:"message"`
	Preemption      *preemptionExpl   `json:"preemption"`
}

type preemptionCandidate struct {
	Node          string   `json:"node"`
	Victims       []string `json:"victims"`
	PDBViolations int64    `json:"pdbViolations"`
}

// preemptionExpl is what DefaultPreemption would do for an unschedulable pod (nothing is
// evicted).
type preemptionExpl struct {
	Eligible      bool                  `json:"eligible"`
	Message       string                `json:"message"`
	Candidates    []preemptionCandidate `json:"candidates"`
	Selected      *string               `json:"selected"`
	Victims       []string              `json:"victims"`
	NotCandidates map[string][]string   `json:"notCandidates"`
}

func toVerdict(plugin string, s *fwk.Status) verdict {
	if s == nil {
		return verdict{Plugin: plugin, Code: fwk.Success.String(), Reasons: []string{}}
	}
	return verdict{Plugin: plugin, Code: s.Code().String(), Reasons: nonNil(s.Reasons())}
}

// usageError is bad input or arguments (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// explainProfile is the profile of the scheduler the target names.
func explainProfile(cfg *schedconfig.KubeSchedulerConfiguration, target *v1.Pod) (*schedconfig.KubeSchedulerProfile, error) {
	var prof *schedconfig.KubeSchedulerProfile
	for i := range cfg.Profiles {
		if cfg.Profiles[i].SchedulerName == target.Spec.SchedulerName {
			prof = &cfg.Profiles[i]
		}
	}
	if prof == nil {
		return nil, usageError{fmt.Sprintf("no profile for schedulerName %q", target.Spec.SchedulerName)}
	}
	return prof, nil
}

// explainWorld builds the world explain runs in: the cluster fed as simulate feeds it (nodes,
// bound pods, the pending pods in creation order), nothing scheduled, the snapshot updated.
func explainWorld(cl *Cluster, cfg *schedconfig.KubeSchedulerConfiguration, settleTimeout time.Duration) (*world, error) {
	w, err := newWorld(cl, cfg, settleTimeout, 1)
	if err != nil {
		return nil, err
	}
	if err := w.feedForExplain(cl); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *world) feedForExplain(cl *Cluster) error {
	if err := w.addNodesAndRunningPods(cl); err != nil {
		return err
	}
	var pending []*v1.Pod
	for _, p := range cl.Pods {
		if p.Spec.NodeName == "" {
			pending = append(pending, p)
		}
	}
	for i, p := range creationOrder(pending) {
		if err := w.addPendingPod(p, clockStart.Add(-time.Duration(len(pending)-i))); err != nil {
			return err
		}
	}
	return w.updateSnapshot()
}

// explainPod explains target: a pending pod of the cluster, or a pod that is not in it.
func explainPod(cl *Cluster, cfg *schedconfig.KubeSchedulerConfiguration, target *v1.Pod, settleTimeout time.Duration) (*explanation, error) {
	prof, err := explainProfile(cfg, target)
	if err != nil {
		return nil, err
	}
	w, err := explainWorld(cl, cfg, settleTimeout)
	if err != nil {
		return nil, err
	}
	defer w.close()
	return explainIn(w, prof, target, 0)
}

// explainIn explains target in w, a world of explainWorld, with a framework of its own (the
// n-th built in w: each gets a profile name of its own, see below). What it changes in w is
// the scheduler's nextStartNodeIndex only (explainWorlds).
func explainIn(w *world, prof *schedconfig.KubeSchedulerProfile, target *v1.Pod, n int) (*explanation, error) {
	ctx := w.ctx
	instances := map[string]fwkPlugin{}
	registry := frameworkplugins.NewInTreeRegistry()
	for name, factory := range registry {
		name, factory := name, factory
		registry[name] = func(ctx context.Context, args runtime.Object, h fwkHandle) (fwkPlugin, error) {
			p, err := factory(ctx, args, h)
			if err == nil {
				instances[name] = p
			}
			return p, err
		}
	}
	h := w.sched.Profiles[prof.SchedulerName]
	// A profile name of its own: DynamicResources registers a pod-informer indexer named after
	// the profile, which the scheduler's framework has already registered (the name is otherwise
	// used only in metric labels).
	eprof := *prof
	eprof.SchedulerName = prof.SchedulerName + "/kschedconf-explain"
	if n > 0 {
		eprof.SchedulerName += fmt.Sprintf("-%d", n+1)
	}
	handlers := &handlerTracker{} // explain_handlers.go
	opts := []frameworkruntime.Option{
		frameworkruntime.WithClientSet(h.ClientSet()),
		frameworkruntime.WithInformerFactory(handlers.factory(h.SharedInformerFactory())),
		frameworkruntime.WithSharedDRAManager(h.SharedDRAManager()),
		frameworkruntime.WithSnapshotSharedLister(w.snapshot),
		frameworkruntime.WithPodNominator(w.sched.SchedulingQueue),
		frameworkruntime.WithPodActivator(w.sched.SchedulingQueue),
		frameworkruntime.WithEventRecorder(nopRecorder{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithParallelism(1),
	}
	// The options of the release's scheduler.New that older releases lack (release_*.go).
	opts = append(opts, csiFrameworkOptions(h)...)
	opts = append(opts, podGroupFrameworkOptions(h)...)
	opts = append(opts, w.mutableSnapshotFrameworkOptions()...)
	efw, err := frameworkruntime.NewFramework(ctx, registry, &eprof, opts...)
	if err != nil {
		return nil, err
	}
	if err := handlers.waitSynced(w.settleTimeout); err != nil {
		return nil, err
	}
	ofw := &observedFramework{Framework: efw, w: w}
	plugins := efw.ListPlugins()

	out := &explanation{APIVersion: "kschedconf/v1", Kind: "Explanation", UpstreamRelease: upstreamRelease,
		Pod: podKey(target), PreFilter: []verdict{}, Nodes: []nodeExplanation{}, Candidates: []string{}}

	gate := ""
	for _, pl := range efw.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, target); !st.IsSuccess() {
			gate = st.Message()
			break
		}
	}

	// 1. PreFilter, plugin by plugin, on a state of its own.
	nodes, err := w.snapshot.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	probe := framework.NewCycleState()
	skip := sets.New[string]()
	var preRes sets.Set[string]
	for _, p := range plugins.PreFilter.Enabled {
		pl, ok := instances[p.Name].(preFilterPlugin)
		if !ok {
			continue
		}
		r, s := pl.PreFilter(ctx, probe, target, nodes)
		out.PreFilter = append(out.PreFilter, toVerdict(p.Name, s))
		if s.IsSkip() {
			skip.Insert(p.Name)
			continue
		}
		if r != nil && !r.AllNodes() {
			if preRes == nil {
				preRes = sets.New(sets.List(r.NodeNames)...)
			} else {
				preRes = preRes.Intersection(r.NodeNames)
			}
		}
	}
	probe.SetSkipFilterPlugins(skip)

	// 2. Upstream's algorithm for the verdict.
	examined := sets.New[string]()
	var scored []nodePluginScores
	var scoreState fwk.CycleState // the state scored was computed on
	var selected string
	if gate != "" {
		out.Message = "gated at PreEnqueue: " + gate
	} else {
		pi, err := framework.NewPodInfo(target)
		if err != nil {
			return nil, err
		}
		sstate := framework.NewCycleState()
		res, err := w.schedulePodOnce(ctx, ofw, sstate, pi)
		switch fe := err.(type) {
		case nil:
			selected = res.SuggestedHost
			out.Selected = strPtr(selected)
			out.EvaluatedNodes, out.FeasibleNodes = res.EvaluatedNodes, res.FeasibleNodes
			out.Shortcut = res.FeasibleNodes == 1
			if !out.Shortcut && ofw.lastScores != nil {
				scored, scoreState = ofw.lastScores, sstate
				examined.Insert(ofw.lastNodes...)
			} else {
				examined.Insert(selected)
			}
		case *framework.FitError:
			out.Message = fe.Error()
			out.EvaluatedNodes = fe.Diagnosis.NodeToStatus.Len()
			out.Preemption = explainPreemption(ctx, w, efw, instances, sstate, target, fe)
		default:
			out.Message = err.Error()
		}
	}

	// 3. Every Filter plugin on every node.
	prefilterRejected := false
	for _, v := range out.PreFilter {
		switch v.Code {
		case fwk.Unschedulable.String(), fwk.UnschedulableAndUnresolvable.String(), fwk.Error.String():
			prefilterRejected = true
		}
	}
	for _, ni := range nodes {
		name := ni.Node().Name
		ne := nodeExplanation{Name: name, Filters: []verdict{}, Scores: []pluginScore{}}
		switch {
		case prefilterRejected:
		case preRes != nil && !preRes.Has(name):
			ne.Filters = append(ne.Filters, verdict{Plugin: "PreFilterResult", Code: fwk.UnschedulableAndUnresolvable.String(),
				Reasons: []string{"node is not in the PreFilter plugins' node set"}})
		default:
			st1, ni1 := addGENominated(ctx, efw, probe, target, ni)
			for _, p := range plugins.Filter.Enabled {
				if skip.Has(p.Name) {
					ne.Filters = append(ne.Filters, verdict{Plugin: p.Name, Code: fwk.Skip.String(), Reasons: []string{}})
					continue
				}
				pl, ok := instances[p.Name].(filterPlugin)
				if !ok {
					continue
				}
				ne.Filters = append(ne.Filters, toVerdict(p.Name, pl.Filter(ctx, st1, target, ni1)))
			}
			ne.Feasible = efw.RunFilterPluginsWithNominatedPods(ctx, probe, target, ni).IsSuccess()
			ne.Examined = examined.Has(name)
		}
		out.Nodes = append(out.Nodes, ne)
	}

	// 4. Scores of the nodes upstream scored (or of the single feasible node).
	if out.Shortcut && selected != "" {
		if ni, err := w.snapshot.NodeInfos().Get(selected); err == nil && efw.HasScorePlugins() {
			state := framework.NewCycleState()
			if _, s, _ := efw.RunPreFilterPlugins(ctx, state, target); s.IsSuccess() {
				one := []fwk.NodeInfo{ni}
				if efw.RunPreScorePlugins(ctx, state, target, one).IsSuccess() {
					scored, _ = efw.RunScorePlugins(ctx, state, target, one)
					scoreState = state
				}
			}
		}
	}
	weights := map[string]int64{}
	for _, p := range plugins.Score.Enabled {
		weights[p.Name] = int64(p.Weight)
	}
	byName := map[string]nodePluginScores{}
	for _, s := range scored {
		byName[s.Name] = s
	}
	var best *int64
	for i := range out.Nodes {
		s, ok := byName[out.Nodes[i].Name]
		if !ok {
			continue
		}
		ni, _ := w.snapshot.NodeInfos().Get(s.Name)
		raw := rawScores(s, func(plugin string) int64 {
			// Before v1.37 only: the plugin's Score again, on the state of the scoring.
			if pl, ok := instances[plugin].(scorePlugin); ok && ni != nil {
				if v, st := pl.Score(ctx, scoreState, target, ni); st.IsSuccess() {
					return v
				}
			}
			return 0
		})
		for _, ps := range s.Scores {
			wt := weights[ps.Name]
			norm := int64(0)
			if wt != 0 {
				norm = ps.Score / wt
			}
			out.Nodes[i].Scores = append(out.Nodes[i].Scores, pluginScore{Plugin: ps.Name, Raw: raw[ps.Name], Normalized: norm, Weight: wt, Weighted: ps.Score})
		}
		total := s.TotalScore
		out.Nodes[i].Total = &total
		if best == nil || total > *best {
			best = &total
		}
	}
	if best != nil {
		for _, n := range out.Nodes {
			if n.Total != nil && *n.Total == *best {
				out.Candidates = append(out.Candidates, n.Name)
			}
		}
	}
	return out, nil
}

// addGENominated mirrors what RunFilterPluginsWithNominatedPods does first (addGENominatedPods):
// the nominated pods of equal or higher priority added to copies of the node and the state.
func addGENominated(ctx context.Context, fh framework.Framework, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (fwk.CycleState, fwk.NodeInfo) {
	nominated := fh.NominatedPodsForNode(ni.Node().Name)
	if len(nominated) == 0 {
		return state, ni
	}
	nodeOut := ni.Snapshot()
	stateOut := state.Clone()
	for _, pi := range nominated {
		if corev1helpers.PodPriority(pi.GetPod()) >= corev1helpers.PodPriority(pod) && pi.GetPod().UID != pod.UID {
			nodeOut.AddPodInfo(pi)
			if st := fh.RunPreFilterExtensionAddPod(ctx, stateOut, pod, pi, nodeOut); !st.IsSuccess() {
				return state, ni
			}
		}
	}
	return stateOut, nodeOut
}

// explainPreemption runs DefaultPreemption's evaluation (the profile's own plugin instance:
// PodEligibleToPreemptOthers, DryRunPreemption over the potential nodes, SelectCandidate)
// without actuating it. The dry run starts at offset 0, where upstream draws a random offset
// (it matters only when fewer candidates than potential nodes are wanted); SelectCandidate
// breaks a complete tie by Go map order, which the message then says.
func explainPreemption(ctx context.Context, w *world, efw framework.Framework, instances map[string]fwkPlugin, state fwk.CycleState, pod *v1.Pod, fe *framework.FitError) *preemptionExpl {
	enabled := false
	for _, p := range efw.ListPlugins().PostFilter.Enabled {
		if p.Name == names.DefaultPreemption {
			enabled = true
		}
	}
	pl, ok := instances[names.DefaultPreemption].(*defaultpreemption.DefaultPreemption)
	if !enabled || !ok {
		return nil
	}
	m := fe.Diagnosis.NodeToStatus
	out := &preemptionExpl{Candidates: []preemptionCandidate{}, Victims: []string{}, NotCandidates: map[string][]string{}}
	if eligible, msg := pl.PodEligibleToPreemptOthers(ctx, pod, m.Get(pod.Status.NominatedNodeName)); !eligible {
		out.Message = msg
		if out.Message == "" {
			out.Message = "the pod may not preempt"
		}
		return out
	}
	out.Eligible = true
	lister := mutableNodeInfos(efw)
	allNodes, err := lister.List()
	if err != nil {
		out.Message = err.Error()
		return out
	}
	var cands []preemption.Candidate
	statuses := framework.NewDefaultNodeToStatus()
	potential, err := m.NodesForStatusCode(lister, fwk.Unschedulable)
	if err == nil && len(potential) > 0 {
		pdbs, perr := pl.Evaluator.PdbLister.List(labels.Everything())
		if perr != nil {
			err = perr
		} else {
			_, num := pl.GetOffsetAndNumCandidates(int32(len(potential)))
			var derr error
			cands, statuses, derr = pl.Evaluator.DryRunPreemption(ctx, state, pod, potential, pdbs, 0, num)
			if len(cands) == 0 && derr != nil {
				err = derr
			}
		}
	}
	if err != nil {
		out.Message = err.Error()
	}
	isCand := map[string]bool{}
	victimsOf := map[string]*extenderv1.Victims{}
	for _, c := range cands {
		isCand[c.Name()] = true
		victimsOf[c.Name()] = c.Victims()
		var vs []string
		for _, v := range c.Victims().Pods {
			vs = append(vs, podKey(v))
		}
		out.Candidates = append(out.Candidates, preemptionCandidate{Node: c.Name(), Victims: nonNil(vs), PDBViolations: c.Victims().NumPDBViolations})
	}
	explicit := map[string]*fwk.Status{}
	statuses.ForEachExplicitNode(func(name string, st *fwk.Status) { explicit[name] = st })
	for _, ni := range allNodes {
		name := ni.Node().Name
		if isCand[name] {
			continue
		}
		if st := m.Get(name); st.Code() == fwk.UnschedulableAndUnresolvable {
			var rs []string
			for _, r := range st.Reasons() {
				rs = append(rs, "preemption cannot help: "+r)
			}
			if len(rs) == 0 {
				rs = []string{"preemption cannot help (UnschedulableAndUnresolvable)"}
			}
			out.NotCandidates[name] = rs
		} else if st, ok := explicit[name]; ok {
			out.NotCandidates[name] = nonNil(st.Reasons())
		} else {
			out.NotCandidates[name] = []string{"not examined: enough candidates were found first"}
		}
	}
	if len(cands) > 0 {
		best := pl.Evaluator.SelectCandidate(ctx, cands)
		if best != nil && best.Name() != "" {
			out.Selected = strPtr(best.Name())
			for _, v := range best.Victims().Pods {
				out.Victims = append(out.Victims, podKey(v))
			}
			if err == nil {
				out.Message = fmt.Sprintf("would nominate %s, preempting %d pod(s)", best.Name(), len(out.Victims))
			}
			if ties := tiedCandidates(victimsOf); len(ties) > 1 {
				out.Message += fmt.Sprintf(" (nodes %s tie on every criterion: upstream picks one at random)", strings.Join(ties, ", "))
			}
		}
	} else if out.Message == "" {
		out.Message = "preemption is not helpful: no node can be freed for this pod"
	}
	return out
}

package main

// Recording where upstream's preemption is random (it cannot be seeded from outside):
//
//   - DefaultPreemption dry-runs the potential nodes starting at offset rand.Int31n(n)
//     (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
//     GetOffsetAndNumCandidates) and stops after enough candidates: when fewer candidates than
//     potential nodes are wanted, the candidate set depends on the draw;
//   - SelectCandidate (pkg/scheduler/framework/preemption/preemption.go pickOneNodeForPreemption)
//     breaks a tie that survives every criterion by taking the first node of a list built from
//     Go map iteration: random.
//
// Before the real PostFilter runs, a second DefaultPreemption instance (same args, same
// framework handle) dry-runs every potential node from offset 0 with DryRunPreemption, which has
// no side effects; the candidates and the default criteria show whether the real choice could
// have come out differently. The findings go to the output's "notes".

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

type preemptionNotes struct {
	w       *world
	enabled bool
	args    *schedconfig.DefaultPreemptionArgs
	pl      *defaultpreemption.DefaultPreemption
	handle  framework.Framework
}

type dryRun struct {
	potential     int
	numCandidates int32
	candidates    map[string]*extenderv1.Victims
	order         []string
}

func newPreemptionNotes(w *world, prof framework.Framework) *preemptionNotes {
	pn := &preemptionNotes{w: w, handle: prof}
	// Only when the profile runs DefaultPreemption as a PostFilter plugin.
	for _, p := range prof.ListPlugins().PostFilter.Enabled {
		if p.Name == names.DefaultPreemption {
			pn.enabled = true
		}
	}
	if !pn.enabled {
		return pn
	}
	var args runtime.Object
	for _, pc := range w.cfg.Profiles {
		if pc.SchedulerName != prof.ProfileName() {
			continue
		}
		for _, c := range pc.PluginConfig {
			if c.Name == names.DefaultPreemption {
				args = c.Args
			}
		}
	}
	a, ok := args.(*schedconfig.DefaultPreemptionArgs)
	if !ok {
		pn.enabled = false
		return pn
	}
	pn.args = a
	factory := frameworkplugins.NewInTreeRegistry()[names.DefaultPreemption]
	p, err := factory(w.ctx, a, prof)
	if err != nil {
		w.note(fmt.Sprintf("preemption notes disabled: %v", err))
		pn.enabled = false
		return pn
	}
	pn.pl = p.(*defaultpreemption.DefaultPreemption)
	return pn
}

// numCandidates restates DefaultPreemption.calculateNumCandidates: a percentage of the
// potential nodes, at least the absolute minimum, at most all of them.
func (pn *preemptionNotes) numCandidates(n int32) int32 {
	c := n * pn.args.MinCandidateNodesPercentage / 100
	if c < pn.args.MinCandidateNodesAbsolute {
		c = pn.args.MinCandidateNodesAbsolute
	}
	if c > n {
		c = n
	}
	return c
}

func (pn *preemptionNotes) before(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, m nodeToStatusReader) *dryRun {
	if !pn.enabled {
		return nil
	}
	latest, err := pn.pl.Evaluator.PodLister.Pods(pod.Namespace).Get(pod.Name)
	if err != nil {
		return nil
	}
	if ok, _ := pn.pl.PodEligibleToPreemptOthers(ctx, latest, m.Get(latest.Status.NominatedNodeName)); !ok {
		return nil
	}
	potential, err := m.NodesForStatusCode(mutableNodeInfos(fw), fwk.Unschedulable)
	if err != nil || len(potential) == 0 {
		return nil
	}
	pdbs, err := pn.pl.Evaluator.PdbLister.List(labels.Everything())
	if err != nil {
		return nil
	}
	n := int32(len(potential))
	cands, _, _ := pn.pl.Evaluator.DryRunPreemption(ctx, state, latest, potential, pdbs, 0, n)
	d := &dryRun{potential: len(potential), numCandidates: pn.numCandidates(n), candidates: map[string]*extenderv1.Victims{}}
	for _, c := range cands {
		d.candidates[c.Name()] = c.Victims()
		d.order = append(d.order, c.Name())
	}
	return d
}

// needsAPICall: whether the preemption that nominated node deletes a victim through the API
// server (a terminating victim gets none since v1.35: skipsTerminatingVictims), so that settle
// waits for its goroutine and the deletes are the attempt's victims.
func (d *dryRun) needsAPICall(node string) bool {
	v, ok := d.candidates[node]
	if !ok {
		return true
	}
	for _, p := range v.Pods {
		if p.DeletionTimestamp == nil || !skipsTerminatingVictims {
			return true
		}
	}
	return false
}

func (pn *preemptionNotes) after(pod *v1.Pod, d *dryRun, chosen string) {
	key := podKey(pod)
	if int(d.numCandidates) < d.potential {
		pn.w.note(fmt.Sprintf("preemption for %s: DefaultPreemption dry-runs %d of %d potential nodes from a random offset (rand.Int31n), so the candidate set is random; preemption is possible on %d node(s); upstream nominated %s",
			key, d.numCandidates, d.potential, len(d.candidates), chosen))
		return
	}
	ties := tiedCandidates(d.candidates)
	if len(ties) > 1 {
		pn.w.note(fmt.Sprintf("preemption for %s: candidate nodes [%s] tie on every DefaultPreemption criterion; upstream picks by Go map iteration order (random); it nominated %s",
			key, strings.Join(ties, " "), chosen))
	}
}

// tiedCandidates restates the default criteria of pickOneNodeForPreemption (fewest PDB
// violations, lowest highest-priority victim, lowest priority sum, fewest victims, latest
// earliest start time of the victims) and returns the nodes left tied after all of them, sorted.
func tiedCandidates(c map[string]*extenderv1.Victims) []string {
	nodes := make([]string, 0, len(c))
	for n := range c {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	criteria := []func(string) int64{
		func(n string) int64 { return -c[n].NumPDBViolations },
		func(n string) int64 { return -int64(corev1helpers.PodPriority(c[n].Pods[0])) },
		func(n string) int64 {
			var sum int64
			for _, p := range c[n].Pods {
				sum += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
			}
			return -sum
		},
		func(n string) int64 { return -int64(len(c[n].Pods)) },
		func(n string) int64 { return earliestStart(c[n]) },
	}
	for _, f := range criteria {
		if len(nodes) <= 1 {
			break
		}
		best := int64(math.MinInt64)
		var keep []string
		for _, n := range nodes {
			s := f(n)
			if s > best {
				best, keep = s, nil
			}
			if s == best {
				keep = append(keep, n)
			}
		}
		nodes = keep
	}
	return nodes
}

// earliestStart restates util.GetEarliestPodStartTime (pkg/scheduler/util/utils.go): the
// earliest start time of the victims of the highest priority. A victim without
// status.startTime counts as "now" (GetPodStartTime reads time.Now() for it), later than any
// recorded time; two nodes whose earliest start is "now" are then ordered by when upstream read
// the clock, i.e. by Go map iteration order, so they stay tied here (math.MaxInt64 for both).
func earliestStart(v *extenderv1.Victims) int64 {
	if len(v.Pods) == 0 {
		return math.MinInt64
	}
	start := func(p *v1.Pod) int64 {
		if p.Status.StartTime == nil {
			return math.MaxInt64
		}
		return p.Status.StartTime.UnixNano()
	}
	top := corev1helpers.PodPriority(v.Pods[0])
	earliest := start(v.Pods[0])
	for _, p := range v.Pods {
		switch pr := corev1helpers.PodPriority(p); {
		case pr == top:
			if s := start(p); s < earliest {
				earliest = s
			}
		case pr > top:
			top, earliest = pr, start(p)
		}
	}
	return earliest
}

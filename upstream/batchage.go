package main

// Opportunistic batching's age on the virtual clock (v1.35+). OpportunisticBatch
// (pkg/scheduler/framework/runtime/batch.go) stamps its batch state with `creationTime:
// time.Now()` in StoreScheduleResults and drops it in batchStateCompatible when
// `time.Now().After(b.state.creationTime.Add(maxBatchAge))`: the wall clock, which in a real
// cluster is scenario time. Here the clock jumps over idle time in no wall time, and the wall
// time between two cycles is the subject's own (settling, volume polls). So around each
// ScheduleOne the state's creationTime (an unexported field of an unexported type, reached with
// reflect and written through unsafe) is rewritten so that upstream's own comparison answers as
// it would on the virtual clock: the age is the virtual time between the cycle that stored the
// state and this one. The layout is checked when the run starts; a release that changes it
// fails with an error naming this file. v1.34 has no batching (hasOpportunisticBatching).

import (
	"fmt"
	"reflect"
	"sort"
	"time"
	"unsafe"

	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// maxBatchAge is upstream's (pkg/scheduler/framework/runtime/batch.go).
const maxBatchAge = 500 * time.Millisecond

// batchAge keeps the batch state of one profile on the virtual clock.
type batchAge struct {
	state  reflect.Value  // OpportunisticBatch.state (*batchState), addressable: read live
	offset uintptr        // of batchState.creationTime
	last   unsafe.Pointer // the state after the last cycle (held, so its address stays its own)
	born   time.Time      // the virtual time of the cycle that stored it
}

// batchAges finds the batch state of every profile of the scheduler (before observe wraps
// them): none when the release has no batching or the OpportunisticBatching gate is off.
func batchAges(profiles map[string]framework.Framework) ([]*batchAge, error) {
	if !hasOpportunisticBatching {
		return nil, nil
	}
	names := make([]string, 0, len(profiles))
	for name := range profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []*batchAge
	for _, name := range names {
		a, err := newBatchAge(profiles[name])
		if err != nil {
			return nil, fmt.Errorf("profile %s: upstream's OpportunisticBatch is not laid out as "+
				"upstream/batchage.go expects (pkg/scheduler/framework/runtime/batch.go and "+
				"framework.go of %s): %v", name, upstreamRelease, err)
		}
		if a != nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// newBatchAge reaches frameworkImpl.batch (*OpportunisticBatch).state (*batchState) and the
// offset of its creationTime (time.Time); nil when the framework has no batch (gate off).
func newBatchAge(fw framework.Framework) (*batchAge, error) {
	v := reflect.ValueOf(fw)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("the framework is a %T, not a pointer to a struct", fw)
	}
	b := v.Elem().FieldByName("batch")
	if !b.IsValid() || b.Kind() != reflect.Pointer || b.Type().Elem().Name() != "OpportunisticBatch" ||
		b.Type().Elem().PkgPath() != "k8s.io/kubernetes/pkg/scheduler/framework/runtime" {
		return nil, fmt.Errorf("%T has no field batch *runtime.OpportunisticBatch", fw)
	}
	if b.IsNil() {
		return nil, nil
	}
	st := b.Elem().FieldByName("state")
	if !st.IsValid() || st.Kind() != reflect.Pointer || st.Type().Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("OpportunisticBatch has no field state (a pointer to a struct)")
	}
	ct, ok := st.Type().Elem().FieldByName("creationTime")
	if !ok || ct.Type != reflect.TypeOf(time.Time{}) {
		return nil, fmt.Errorf("%v has no field creationTime time.Time", st.Type().Elem())
	}
	return &batchAge{state: st, offset: ct.Offset, last: st.UnsafePointer()}, nil
}

// before runs before a ScheduleOne at virtual time now: it sets creationTime so that
// `time.Now().After(creationTime + maxBatchAge)` in this cycle holds exactly when the state is
// older than maxBatchAge on the virtual clock. Expired: wall now minus the virtual age. Fresh:
// wall now plus the longest a ScheduleOne may take (scheduleOne gives up after settleTimeout),
// so no wall time spent in the cycle can expire it. Cycles take no virtual time.
func (a *batchAge) before(now time.Time, cycle time.Duration) error {
	p := a.state.UnsafePointer()
	if p == nil {
		return nil
	}
	if p != a.last {
		return fmt.Errorf("upstream/batchage.go: the batch state changed outside a scheduling cycle")
	}
	created := (*time.Time)(unsafe.Add(p, a.offset))
	wall := time.Now()
	if age := now.Sub(a.born); age > maxBatchAge {
		*created = wall.Add(-age)
	} else {
		*created = wall.Add(cycle)
	}
	return nil
}

// after runs after a ScheduleOne at virtual time now: a new state (StoreScheduleResults made
// one) was born now.
func (a *batchAge) after(now time.Time) {
	if p := a.state.UnsafePointer(); p != a.last {
		a.last, a.born = p, now
	}
}

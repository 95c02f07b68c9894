package main

// Explain's framework shares the scheduler's informer factory, whose informers are running
// and synced. A plugin whose New adds an event handler to one of them (VolumeBinding's
// PersistentVolumeClaim and PersistentVolume assume caches before v1.35:
// pkg/scheduler/util/assumecache/assume_cache.go NewAssumeCache, called from
// pkg/scheduler/framework/plugins/volumebinding/binder.go NewVolumeBinder of v1.34.4) gets the
// informer's objects only when the handler's goroutine has delivered the initial list: asked at
// once, its PreFilter reports "could not find v1.PersistentVolumeClaim". The scheduler itself
// adds those handlers before the informers start and waits for them. Since v1.35 the assume
// caches read the informer's store (passive_assume_cache.go) and add no handler.
//
// handlerTracker hands explain's framework a factory that records the handlers added to those
// informers (its factory method: release_before_1_35.go; since v1.35 the factory as is,
// release_since_1_35.go), and waitSynced waits until each has delivered the initial list (the
// registration's HasSynced), as the scheduler's start-up does.

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
)

type handlerTracker struct {
	mu   sync.Mutex
	regs []cache.ResourceEventHandlerRegistration
}

func (t *handlerTracker) add(r cache.ResourceEventHandlerRegistration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.regs = append(t.regs, r)
}

// waitSynced waits until every recorded handler has been delivered its informer's initial list.
func (t *handlerTracker) waitSynced(timeout time.Duration) error {
	t.mu.Lock()
	regs := append([]cache.ResourceEventHandlerRegistration(nil), t.regs...)
	t.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for _, r := range regs {
		for !r.HasSynced() {
			if time.Now().After(deadline) {
				return fmt.Errorf("explain: the plugins' informer event handlers did not sync within %v", timeout)
			}
			pause(syncPause) // cluster.go waitSynced
		}
	}
	return nil
}

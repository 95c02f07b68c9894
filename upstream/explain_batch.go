package main

// Serve's explain of several pods of one cluster ("pods" in the request): the differential's
// lockstep explains every pod attempted on one cluster state (upstream's outcomes applied), a
// dozen pods on some states, and building the world (decoding the cluster, the fake API
// server, scheduler.New, the informers, feeding the objects) was most of a request's time.
//
// The pods are explained one after another in one world of explainWorld, each with a
// framework of its own (explainIn), so nothing a plugin instance keeps (DynamicResources' CEL
// cache, OpportunisticBatching's stored results in v1.37) carries over. Explaining changes
// nothing in the world but the scheduler's nextStartNodeIndex (pkg/scheduler/schedule_one.go
// findNodesThatFitPod: advanced by the nodes processed, modulo the nodes; 0 again whenever
// every node was processed): a new world is built for the next pod unless it is 0 again, as in
// a fresh world, and the world has settled (nothing asynchronous pending).

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// explanationList is serve's answer to an explain request with "pods": one item per pod, an
// Explanation or {"error": "..."}.
type explanationList struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Items      []interface{} `json:"items"`
}

// explainPods explains each pod of pods (as "pod" of an explain request) on the cluster.
func explainPods(cl *Cluster, cfg *schedconfig.KubeSchedulerConfiguration, pods []json.RawMessage, settleTimeout time.Duration) *explanationList {
	out := &explanationList{APIVersion: "kschedconf/v1", Kind: "ExplanationList", Items: []interface{}{}}
	var w *world
	n := 0 // explanations asked in w
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	for _, raw := range pods {
		e, err := func() (*explanation, error) {
			target, err := requestPod(raw, cl)
			if err != nil {
				return nil, err
			}
			prof, err := explainProfile(cfg, target)
			if err != nil {
				return nil, err
			}
			if w == nil {
				if w, err = explainWorld(cl, cfg, settleTimeout); err != nil {
					return nil, err
				}
				n = 0
			}
			e, err := explainIn(w, prof, target, n)
			n++
			if err != nil || !w.reusable() {
				w.close()
				w = nil
			}
			return e, err
		}()
		if err != nil {
			out.Items = append(out.Items, map[string]string{"error": err.Error()})
		} else {
			out.Items = append(out.Items, e)
		}
	}
	return out
}

// reusable reports whether another pod may be explained in w as in a fresh world: the
// scheduler's nextStartNodeIndex is 0 and nothing is pending.
func (w *world) reusable() bool {
	f := reflect.ValueOf(w.sched).Elem().FieldByName("nextStartNodeIndex")
	if !f.IsValid() || f.Int() != 0 {
		return false
	}
	return w.settle() == nil
}

// serveExplain answers an explain request: "pod" (an Explanation) or "pods" (an
// explanationList), not both.
func serveExplain(req *serveRequest, cl *Cluster, cfg *schedconfig.KubeSchedulerConfiguration) (interface{}, error) {
	hasPod := len(req.Pod) > 0 && string(req.Pod) != "null"
	if req.Pods != nil {
		if hasPod {
			return nil, fmt.Errorf("explain takes \"pod\" or \"pods\", not both")
		}
		return explainPods(cl, cfg, req.Pods, 10*time.Second), nil
	}
	target, err := requestPod(req.Pod, cl)
	if err != nil {
		return nil, err
	}
	return explainPod(cl, cfg, target, 10*time.Second)
}

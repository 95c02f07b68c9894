"""Actuating a preemption: evicting the victims and clearing lower-priority nominations.

Upstream: ``pkg/scheduler/framework/preemption/executor.go`` (Executor, NewExecutor's
PreemptPod, actuatePodPreemption, prepareCandidate, prepareCandidateAsync,
IsPodRunningPreemption, isRunningPreemption, clearNominatedNodeName,
getLowerPriorityNominatedPods). The two modes are on :meth:`Executor.prepare_candidate` and
:meth:`Executor.prepare_candidate_async`, the hooks on :class:`Executor`; how the reference
runs them sequentially: docs/reference.md#preemption. Older releases' rules are behind the
switches ``preempt-terminating-victims`` and ``async-preemption-pending``
(docs/release-differences.md#preemption)."""

from __future__ import annotations

from collections.abc import Callable

from reference_impl.framework.preemption.types import Candidate
from reference_impl.framework.runtime import FrameworkHandle
from reference_impl.framework.status import Status
from reference_impl.model.objects import Pod


class Executor:
    """``Executor``: preempts victims for a preemptor pod, synchronously or asynchronously.

    Hooks for the scheduling queue:

    * ``run_async(fn)``: set it to defer the goroutine (e.g. to a later point of the simulated
      timeline); until ``fn()`` runs, ``is_pod_running_preemption(preemptor uid)`` is true.
      Unset (the default), the goroutine runs at once, inside the PostFilter call;
    * ``activate(pods)``: called with ``{name: pod}`` of the preemptor when the goroutine
      failed (``fh.Activate``); default: nothing;
    * a DELETE that returned success means the pod is gone or terminating, which is what
      ``isRunningPreemption`` reads from the pod lister for the last victim.
    """

    def __init__(self, handle: FrameworkHandle, enable_async_preemption: bool) -> None:
        self.handle = handle
        self.enable_async_preemption = enable_async_preemption
        # preempt-terminating-victims: "skip" (1.35+) or "delete-again" (v1.34.4).
        self.skip_terminating_victims = \
            handle.behaviour("preempt-terminating-victims") == "skip"
        # async-preemption-pending (see prepare_candidate_async).
        self.pending_rule = handle.behaviour("async-preemption-pending")
        # preempting: preemptors whose asynchronous preemption is in flight (uids).
        self.preempting: set[str] = set()
        # lastVictimsPendingPreemption: preemptor uid -> its last victim.
        self.last_victims_pending_preemption: dict[str, Pod] = {}
        # Pods this executor added DisruptionTarget=True/PreemptionByScheduler to (uids).
        self.disruption_targets: set[str] = set()
        # (namespace, name) of pods whose DELETE succeeded: gone or terminating.
        self.deleted: set[tuple[str, str]] = set()
        self.run_async: Callable[[Callable[[], None]], None] | None = None
        self.activate: Callable[[dict[str, Pod]], None] | None = None
        # preempt_pod can be replaced (as upstream's exported PreemptPod field) in tests.
        self.preempt_pod: Callable[[Candidate, Pod, Pod, str], Status | None] = \
            self._preempt_pod

    # ----- PreemptPod -----
    def _preempt_pod(self, c: Candidate, preemptor: Pod, victim: Pod,
                     plugin_name: str) -> Status | None:
        """``PreemptPod``: patch the victim's DisruptionTarget condition, then DELETE it.
        Returns an error status when the API call fails."""
        self.disruption_targets.add(victim.uid)
        s = self.handle.delete_pod(victim, preemptor)
        if s is not None and not s.is_success():
            return s
        self.deleted.add((victim.namespace, victim.name))
        return None

    # ----- actuation -----
    def actuate_pod_preemption(self, c: Candidate, preemptor: Pod,
                               plugin_name: str) -> Status | None:
        """``actuatePodPreemption``: asynchronous when SchedulerAsyncPreemption is on (always
        Success), else synchronous."""
        if self.enable_async_preemption:
            self.prepare_candidate_async(c, preemptor, plugin_name)
            return None
        return self.prepare_candidate(c, preemptor, plugin_name)

    def prepare_candidate(self, c: Candidate, preemptor: Pod, plugin_name: str) -> Status | None:
        """``prepareCandidate`` (synchronous mode, SchedulerAsyncPreemption off): every victim
        not already terminating is preempted (the first error stops and fails the PostFilter),
        *then* the nominations of lower-priority pods on the node are cleared (errors there are
        not critical)."""
        for victim in c.victims.pods:
            if victim.deletion_timestamp is not None and self.skip_terminating_victims:
                continue
            s = self.preempt_pod(c, preemptor, victim, plugin_name)
            if s is not None and not s.is_success():
                return Status.as_error(s.message())
        for p in get_lower_priority_nominated_pods(self.handle, preemptor.priority, c.name):
            self.handle.clear_nominated_node_name(p)
        return None

    def prepare_candidate_async(self, c: Candidate, preemptor: Pod, plugin_name: str) -> None:
        """``prepareCandidateAsync`` (asynchronous mode, SchedulerAsyncPreemption on): the
        preemptor is put in the ``preempting`` set and a goroutine (run through ``run_async``
        when set) clears the lower-priority nominations *first*, then preempts all victims but
        the last, then the last one, and finally takes the preemptor out of ``preempting``.
        Errors never fail the PostFilter; on an error the preemptor is activated. While the
        preemptor is in ``preempting``, DefaultPreemption's PreEnqueue keeps it out of the
        active queue.

        By release (switch ``async-preemption-pending``):

        * ``unmark-before-last`` (v1.34.4 ``pkg/scheduler/framework/preemption/preemption.go``):
          every victim is deleted, terminating or not (when ``preempt-terminating-victims``
          says so); with no victim the nominations are still cleared; the preemptor leaves
          ``preempting`` *before* the last victim is deleted;
        * ``last-victim-pending`` (v1.35.4 ``preemption.go``): no victim to delete ends it at
          once (no nomination cleared); the last victim is recorded as pending before it is
          deleted, and the preemptor leaves ``preempting`` after that;
        * ``skip-last-on-error`` (v1.36.3 ``executor.go``): as the previous one, and after a
          failure the last victim is skipped (``preemptLastVictim = false``);
        * ``activate-after-in-memory`` (v1.37.2 ``executor.go``): as the previous one, and the
          preemptor is also activated when its last victim was preempted in memory (a waiting
          or pre-binding pod); the reference has no such victims, so it reads as the previous
          one.

        After a failure v1.34.4 and v1.35.4 still call PreemptPod for the last victim, but with
        the context the failure cancelled, so its API calls fail before reaching the server;
        the reference does not make them (as for the other victims), so the last victim is
        not deleted in any release (a waiting victim, which those releases reject without an
        API call, is not modelled)."""
        unmark_before_last = self.pending_rule == "unmark-before-last"
        victim_pods = [v for v in c.victims.pods
                       if v.deletion_timestamp is None or not self.skip_terminating_victims]
        if not victim_pods and not unmark_before_last:
            return
        uid = preemptor.uid
        self.preempting.add(uid)

        def goroutine() -> None:
            failed = False
            for p in get_lower_priority_nominated_pods(self.handle, preemptor.priority, c.name):
                self.handle.clear_nominated_node_name(p)
            if not victim_pods:
                self.preempting.discard(uid)
                return
            for victim in victim_pods[:-1]:
                s = self.preempt_pod(c, preemptor, victim, plugin_name)
                if s is not None and not s.is_success():
                    failed = True
                    break
            if unmark_before_last:
                self.preempting.discard(uid)
            if not failed:
                last = victim_pods[-1]
                if not unmark_before_last:
                    self.last_victims_pending_preemption[uid] = last
                s = self.preempt_pod(c, preemptor, last, plugin_name)
                if s is not None and not s.is_success():
                    failed = True
            self.preempting.discard(uid)
            self.last_victims_pending_preemption.pop(uid, None)
            if failed and self.activate is not None:
                self.activate({preemptor.name: preemptor})

        if self.run_async is not None:
            self.run_async(goroutine)
        else:
            goroutine()

    # ----- PreEnqueue support -----
    def is_pod_running_preemption(self, pod_uid: str) -> bool:
        """``IsPodRunningPreemption`` / ``isRunningPreemption``: in ``preempting``, and either
        its last victim is not registered yet or that victim still exists and is not
        terminating (gone: its DELETE succeeded or it left the cluster's snapshot). With
        ``unmark-before-last`` (v1.34.4 ``preemption.go``) the last victim is never
        registered: in ``preempting`` is the answer."""
        if pod_uid not in self.preempting:
            return False
        victim = self.last_victims_pending_preemption.get(pod_uid)
        if victim is None:
            return True
        if (victim.namespace, victim.name) in self.deleted:
            return False
        if not self.handle.snapshot().is_assumed_or_bound(victim):
            return False
        return victim.deletion_timestamp is None


def get_lower_priority_nominated_pods(handle: FrameworkHandle, priority: int,
                                      node_name: str) -> list[Pod]:
    """``getLowerPriorityNominatedPods``: pods nominated to the node with a lower priority."""
    infos = handle.nominated_pods_for_node(node_name)
    return [pi.pod for pi in infos if pi.pod.priority < priority]

"""The nominator: pods nominated to nodes (by preemption), seen by other pods' filtering.

Upstream: ``pkg/scheduler/backend/queue/nominator.go`` (AddNominatedPod, DeleteNominatedPodIfExists,
NominatedPodsForNode); ``backend/queue/scheduling_queue.go`` (NominatedPodsForNode,
nominatedPodToInfo).
"""

from __future__ import annotations

from reference_impl.framework.status import MODE_NOOP, MODE_OVERRIDE, NominatingInfo
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import Pod
from reference_impl.model.requests import compute_pod_resources


class Nominator:
    def __init__(self) -> None:
        self.nominated_pods: dict[str, list[PodInfo]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}
        #: the node of every change of ``nominated_pods``, in order (readers keep a cursor:
        #: ``resource_only.NominatedSums``)
        self.change_log: list[str] = []

    def has_any(self) -> bool:
        return bool(self.nominated_pod_to_node)

    def add_nominated_pod(self, pi: PodInfo, info: NominatingInfo | None) -> None:
        """``addNominatedPodUnlocked``: always drop the old nomination first; ModeOverride
        takes the given node, otherwise the pod's own status.nominatedNodeName."""
        self.delete(pi.pod)
        if pi.pod.node_name:
            return  # already scheduled: not nominated (the podLister check upstream)
        node_name = pi.pod.nominated_node_name
        if info is not None:
            if info.mode == MODE_OVERRIDE:
                node_name = info.nominated_node_name
            elif info.mode == MODE_NOOP:
                if pi.pod.node_name:
                    return
        if not node_name:
            return
        self.nominated_pod_to_node[pi.pod.uid] = node_name
        lst = self.nominated_pods.setdefault(node_name, [])
        for existing in lst:
            if existing.pod.uid == pi.pod.uid:
                return
        lst.append(pi)
        self.change_log.append(node_name)

    def delete(self, pod: Pod) -> None:
        """``DeleteNominatedPodIfExists`` / ``deleteUnlocked``."""
        node = self.nominated_pod_to_node.pop(pod.uid, None)
        if node is None:
            return
        self.change_log.append(node)
        lst = self.nominated_pods.get(node, [])
        for i, pi in enumerate(lst):
            if pi.pod.uid == pod.uid:
                del lst[i]
                break
        if not lst:
            self.nominated_pods.pop(node, None)

    def left_the_queue(self, pod: Pod) -> None:
        """The pod left every queue but keeps its nomination (popped, then skipped by
        ``skipPodSchedule``: ``Done`` only). Upstream's nominator keeps a ``podRef`` (namespace,
        name, UID) and ``nominatedPodToInfo`` finds no queued pod for it, so
        ``NominatedPodsForNode`` gives a pod with nothing but those: no containers, priority
        0. Such a nomination reserves nothing."""
        node = self.nominated_pod_to_node.get(pod.uid)
        if node is None:
            return
        self.change_log.append(node)
        ref = Pod(namespace=pod.namespace, name=pod.name, uid=pod.uid)
        ref.resources = compute_pod_resources(ref)
        self.nominated_pods[node] = [PodInfo(ref) if pi.pod.uid == pod.uid else pi
                                     for pi in self.nominated_pods.get(node, [])]

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.nominated_pods.get(node_name, ()))

    def nominated_node_of(self, pod: Pod) -> str:
        return self.nominated_pod_to_node.get(pod.uid, "")

    def nominated_node_of_uid(self, uid: str) -> str:
        """The node the pod of ``uid`` is nominated to, "" if none."""
        return self.nominated_pod_to_node.get(uid, "")

import type { IExecuteFunctions } from 'n8n-workflow';

import { cancelSignalOf } from '../../../../../shared/transport/cancel';

/** From 1.4 Calls at Once and the pace bound the node, not one run (overlapping executions doubled them). */
const NODE_SCOPE_VERSION = 1.4;

/** The pace's window (pace.ts): the last minute's attempts, oldest first; a 429 pauses all until `pausedUntil`. */
export interface PaceWindow {
	recent: number[];
	pausedUntil: number;
}

interface NodeShare {
	inUse: number;
	waiters: Set<() => void>;
	batches: number;
	pace: PaceWindow;
}

/** By workflow and node, module scope (per process); kept while a batch runs and its pace for a minute after. */
const shares = new Map<string, NodeShare>();

/** One batch's hold on its node's share; `take` is false once `stopped`; `wake` after a stop. */
export interface NodeSlots {
	pace: PaceWindow;
	take(callsAtOnce: number, stopped: () => boolean): Promise<boolean>;
	free(): void;
	wake(): void;
	leave(): void;
}

/** Undefined before 1.4 (each run counts its own). */
export function nodeSlotsOf(context: IExecuteFunctions): NodeSlots | undefined {
	const node = context.getNode();
	if (node.typeVersion < NODE_SCOPE_VERSION) return undefined;
	const key = `${context.getWorkflow().id ?? ''}|${node.id}`;
	forgetIdleShares(Date.now());
	const share = shares.get(key) ?? {
		inUse: 0,
		waiters: new Set<() => void>(),
		batches: 0,
		pace: { recent: [], pausedUntil: 0 },
	};
	shares.set(key, share);
	share.batches++;
	const signal = cancelSignalOf(context);
	let held = 0;
	const wakeAll = () => {
		for (const wake of [...share.waiters]) wake();
	};
	const free = () => {
		if (held === 0) return;
		held--;
		share.inUse--;
		wakeAll();
	};
	return {
		pace: share.pace,
		async take(callsAtOnce, stopped) {
			while (share.inUse >= callsAtOnce) {
				if (stopped()) return false;
				await new Promise<void>((resolve) => {
					const wake = () => {
						share.waiters.delete(wake);
						signal?.removeEventListener('abort', wake);
						resolve();
					};
					share.waiters.add(wake);
					signal?.addEventListener('abort', wake);
				});
			}
			if (stopped()) return false;
			held++;
			share.inUse++;
			return true;
		},
		free,
		wake: wakeAll,
		leave() {
			while (held > 0) free();
			share.batches--;
			forgetIdleShares(Date.now());
		},
	};
}

/** A node's pace outlives its last batch by a minute: the next execution goes on counting those calls. */
const PACE_KEPT_MS = 61_000;

function forgetIdleShares(now: number): void {
	for (const [key, share] of shares) {
		if (share.batches > 0) continue;
		const { recent, pausedUntil } = share.pace;
		while (recent.length > 0 && recent[0] <= now - PACE_KEPT_MS) recent.shift();
		if (recent.length === 0 && pausedUntil <= now) shares.delete(key);
	}
}

/** Nodes sharing slots or a pace now (running, or ran in the last minute). */
export function nodesSharing(): number {
	return shares.size;
}

/** Slots taken and workers waiting, all nodes: 0 and 0 once no execution runs. */
export function slotsInUse(): { taken: number; waiting: number } {
	let taken = 0;
	let waiting = 0;
	for (const share of shares.values()) {
		taken += share.inUse;
		waiting += share.waiters.size;
	}
	return { taken, waiting };
}

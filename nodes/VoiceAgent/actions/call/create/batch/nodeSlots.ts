import type { IExecuteFunctions } from 'n8n-workflow';

import { cancelSignalOf } from '../../../../../shared/transport/cancel';

/**
 * Node version 1.4: Calls at Once and Max New Calls per Minute bound the node, not one run. Before it,
 * each execution counted afresh, so two overlapping executions (two passes of a list, a redelivered
 * webhook) had twice the calls in progress and twice the pace.
 */
export const NODE_SCOPE_VERSION = 1.4;

/** The pace's window, shared by every execution of the node in this process (pace.ts). */
export interface PaceWindow {
	/** Start times (n8n's clock) of the attempts of the last minute, oldest first. */
	recent: number[];
	/** A 429 pauses every call of the node until then. */
	pausedUntil: number;
}

/** What the executions of one node share while any of them runs its batch. */
interface NodeShare {
	/** Calls at Once slots taken right now, all executions together. */
	inUse: number;
	/** Workers waiting for a slot: each looks again when one is freed. */
	waiters: Set<() => void>;
	/** Batches running now; the share goes when none is left. */
	batches: number;
	pace: PaceWindow;
}

/**
 * By workflow ID and node ID. Module scope: every execution of this n8n process sees it (in queue mode,
 * each worker has its own). Kept while a batch of the node runs, and its pace for a minute after: bounded by
 * the nodes that ran in the last minute.
 */
const shares = new Map<string, NodeShare>();

/** One batch's hold on its node's share: slots for Calls at Once, and the pace window. */
export interface NodeSlots {
	pace: PaceWindow;
	/** Waits for a slot while the node has `callsAtOnce` taken; false once `stopped` says so. */
	take(callsAtOnce: number, stopped: () => boolean): Promise<boolean>;
	free(): void;
	/** The batch stopped: its workers waiting for a slot look again (and give up). */
	wake(): void;
	/** The batch is over: its slots are free, and the share goes when no batch uses it. */
	leave(): void;
}

/** The node's share for this batch, from version 1.4; undefined before it (each run counts its own). */
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

/**
 * How long a node's pace outlives its last batch: the pace window (a second over the minute), so that an
 * execution that starts right after another ended goes on counting its calls of the last minute.
 */
const PACE_KEPT_MS = 61_000;

/** Drops the shares no batch uses whose pace has nothing left to count (no call of the last minute, no pause). */
function forgetIdleShares(now: number): void {
	for (const [key, share] of shares) {
		if (share.batches > 0) continue;
		const { recent, pausedUntil } = share.pace;
		while (recent.length > 0 && recent[0] <= now - PACE_KEPT_MS) recent.shift();
		if (recent.length === 0 && pausedUntil <= now) shares.delete(key);
	}
}

/** How many nodes share slots or a pace right now (the nodes running, and those that ran in the last minute). */
export function nodesSharing(): number {
	return shares.size;
}

/** Slots taken and workers waiting for one, all nodes together: 0 and 0 once no execution runs. */
export function slotsInUse(): { taken: number; waiting: number } {
	let taken = 0;
	let waiting = 0;
	for (const share of shares.values()) {
		taken += share.inUse;
		waiting += share.waiters.size;
	}
	return { taken, waiting };
}

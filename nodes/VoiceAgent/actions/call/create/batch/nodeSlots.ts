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
 * each worker has its own). Kept only while a batch of the node runs: bounded by the nodes running now.
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
			if (share.batches === 0 && shares.get(key) === share) shares.delete(key);
		},
	};
}

/** How many nodes share slots right now (memory stays bounded by the nodes running). */
export function nodesSharing(): number {
	return shares.size;
}

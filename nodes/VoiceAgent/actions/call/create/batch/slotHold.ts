import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../../../../../shared/validation';
import type { WaitSettings } from '../../waitForEnd';

/**
 * Node version 1.4: a call not seen to end lets its Calls at Once slot go once Max Wait has passed a
 * second time, unless the option says otherwise. Before 1.4 it keeps the slot until it is seen to end
 * (what those versions promised) unless the option is set.
 */
export const SLOT_HOLD_VERSION = 1.4;
const FIELD = 'Slot Hold (Minutes)';
/** The item's output field that says its call let its slot go before it was seen to end. */
export const SLOT_RELEASED = 'slot_released';

/** Call → Create's bound on how long a call that is never seen to end keeps a slot of Calls at Once. */
export const slotHoldOption: INodeProperties = {
	displayName: FIELD,
	name: 'slotHoldMinutes',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 30,
	displayOptions: { show: { waitForEnd: [true] } },
	description: `After Max Wait, how long a call not yet seen to end still counts toward Calls at Once; then the next lead starts and the output says "${SLOT_RELEASED}": true. Add it only when calls may run longer than Max Wait.`,
};

/**
 * How long the item's call may keep its slot past the item's own wait, in ms: undefined when it holds
 * none (the node does not wait for the call to end), Infinity until the call is seen to end.
 */
export function slotHoldMs(
	version: number,
	validate: InputValidator,
	options: IDataObject,
	wait: WaitSettings | undefined,
): number | undefined {
	if (wait === undefined) return undefined;
	const minutes = options.slotHoldMinutes;
	if (minutes === undefined || minutes === null || minutes === '')
		return version >= SLOT_HOLD_VERSION ? wait.maxWaitMs : Infinity;
	const value = Number(minutes);
	if (typeof minutes === 'boolean' || !Number.isFinite(value) || value < 0) {
		validate.fail(FIELD, `must be a number of minutes, 0 or more (got ${JSON.stringify(minutes)})`);
	}
	return Math.round(value * 60_000);
}

/** The item's output, saying that its call let its slot go before it was seen to end. */
export function releasedOutput(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.map((item) => ({ ...item, json: { ...item.json, [SLOT_RELEASED]: true } }));
}

import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { InputValidator } from '../../../../../shared/validation';
import type { WaitSettings } from '../../waitForEnd';

/** Without the option, from 1.4 a slot goes after Max Wait a second time; before, only once the call ends. */
const SLOT_HOLD_VERSION = 1.4;
const FIELD = 'Slot Hold (Minutes)';
const SLOT_RELEASED = 'slot_released';

export const slotHoldOption: INodeProperties = {
	displayName: FIELD,
	name: 'slotHoldMinutes',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 30,
	displayOptions: { show: { waitForEnd: [true] } },
	description: `After Max Wait, how long a call not yet seen to end still counts toward Calls at Once; then the next lead starts and the output says "${SLOT_RELEASED}": true. Add it only when calls may run longer than Max Wait.`,
};

/** In ms past the item's wait: undefined holds none (no wait), Infinity until the call is seen to end. */
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

export function releasedOutput(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.map((item) => ({ ...item, json: { ...item.json, [SLOT_RELEASED]: true } }));
}

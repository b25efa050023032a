import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listAgents } from '../../../shared/api';
import { returnAllOrLimit } from '../../../shared/descriptions';
import { listLimit } from '../../../shared/parameters';
import type { Agent } from '../../../shared/types';

const properties: INodeProperties[] = [...returnAllOrLimit()];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Agent[]> {
	return await listAgents(this, listLimit(this, itemIndex));
}

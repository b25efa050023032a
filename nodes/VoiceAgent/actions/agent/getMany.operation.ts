import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { returnAllOrLimit } from '../../descriptions/shared';
import { listLimit } from '../../helpers/parameters';
import type { Agent } from '../../helpers/types';
import { paginateCursor } from '../../transport';

const properties: INodeProperties[] = [...returnAllOrLimit()];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<Agent[]> {
	return await paginateCursor<Agent>(this, '/agents', 'agents', {}, listLimit(this, itemIndex));
}

import type { PhoneNumberTypes } from 'awesome-phonenumber';

/** Every number type awesome-phonenumber (libphonenumber) gives an example of: the oracles' examples per region. */
export const EXAMPLE_TYPES: PhoneNumberTypes[] = [
	'fixed-line',
	'fixed-line-or-mobile',
	'mobile',
	'pager',
	'personal-number',
	'premium-rate',
	'shared-cost',
	'toll-free',
	'uan',
	'voip',
];

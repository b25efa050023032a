/**
 * Calling Hours at run time: whether an instant is inside a weekly window of local times in every zone a number
 * may be in, and when it next opens. A window belongs to the local day it opens (22:00–06:00 on Friday runs into
 * Saturday) and is [first instant showing `from`, first instant showing `until`): on a spring-forward day 02:30
 * opens at 03:00 EDT; on a fall-back day it stays open through the repeated hour. The option is option.ts.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	DAY,
	firstInstantShowing,
	formatterOf,
	offsetAt,
} from '../../../../../shared/phoneZones/zoneOffsets';

/** Days 0 = Sunday; `from`, `until` in minutes after local midnight (`until` before `from`: the next day). */
export interface CallingWindow {
	days: readonly number[];
	from: number;
	until: number;
}

/** `described`, e.g. "Monday–Friday 09:00–20:00 in America/New_York". */
export interface ItemHours {
	window: CallingWindow;
	zones: string[];
	described: string;
}

const MINUTE = 60_000;
const SECOND = 1_000;

/** A weekly window opens within a week, whatever the clocks do. */
const HORIZON = 8 * DAY;

/** Minutes after midnight of "8:00", "08:00" or "20:30"; "24:00" is 1440 (an `until`); otherwise undefined. */
export function parseClock(text: string): number | undefined {
	if (typeof text !== 'string') return undefined;
	const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
	if (!match) return undefined;
	const hours = Number(match[1]);
	const minutes = Number(match[2]);
	if (minutes > 59 || hours > 24 || (hours === 24 && minutes > 0)) return undefined;
	return hours * 60 + minutes;
}

/** Whether `Intl` knows the zone: IANA names and "UTC". */
export function isValidTimeZone(zone: string): boolean {
	if (typeof zone !== 'string' || zone.trim() === '') return false;
	try {
		formatterOf(zone);
		return true;
	} catch {
		return false;
	}
}

/** Whether a window opens on a local day (days since 1970-01-01, a Thursday). */
function opensOn(window: CallingWindow, day: number): boolean {
	return window.from !== window.until && window.days.includes((((day + 4) % 7) + 7) % 7);
}

function openingOf(window: CallingWindow, zone: string, day: number): number {
	return firstInstantShowing(zone, day * DAY + window.from * MINUTE);
}

function closingOf(window: CallingWindow, zone: string, day: number): number {
	const closingDay = window.until > window.from ? day : day + 1;
	return firstInstantShowing(zone, closingDay * DAY + window.until * MINUTE);
}

function localDayOf(zone: string, ms: number): number {
	return Math.floor((ms + offsetAt(zone, ms)) / DAY);
}

function isInsideIn(window: CallingWindow, zone: string, atMs: number): boolean {
	const today = localDayOf(zone, atMs);
	// Yesterday's overnight window may still be open; tomorrow's may have opened before the clocks went back.
	for (let day = today - 1; day <= today + 1; day++) {
		if (!opensOn(window, day)) continue;
		if (openingOf(window, zone, day) <= atMs && atMs < closingOf(window, zone, day)) return true;
	}
	return false;
}

/** False for no zones; RangeError for a zone `Intl` does not know. */
export function isInsideWindow(
	window: CallingWindow,
	zones: readonly string[],
	atMs: number,
): boolean {
	if (zones.length === 0) return false;
	for (const zone of zones) if (!isInsideIn(window, zone, atMs)) return false;
	return true;
}

/** The zone's windows [open, close) that end after `fromMs` and open by `untilMs`, in order. */
function windowsIn(
	window: CallingWindow,
	zone: string,
	fromMs: number,
	untilMs: number,
): Array<[number, number]> {
	const windows: Array<[number, number]> = [];
	const lastDay = localDayOf(zone, untilMs) + 1;
	for (let day = localDayOf(zone, fromMs) - 1; day <= lastDay; day++) {
		if (!opensOn(window, day)) continue;
		const open = openingOf(window, zone, day);
		const close = closingOf(window, zone, day);
		if (open < close && close > fromMs && open <= untilMs) windows.push([open, close]);
	}
	return windows;
}

/** The earliest instant from `nowMs` inside the window in every zone; undefined when none within 8 days. */
export function nextWindowStart(
	window: CallingWindow,
	zones: readonly string[],
	nowMs: number,
): number | undefined {
	if (zones.length === 0) return undefined;
	if (isInsideWindow(window, zones, nowMs)) return nowMs;
	const horizon = nowMs + HORIZON;
	const windowsByZone = zones.map((zone) => windowsIn(window, zone, nowMs, horizon));
	let candidate = nowMs;
	for (;;) {
		let moved = false;
		for (const windows of windowsByZone) {
			const next = windows.find(([, close]) => close > candidate);
			if (!next) return undefined;
			if (next[0] > candidate) {
				candidate = next[0];
				moved = true;
			}
		}
		if (candidate > horizon) return undefined;
		if (!moved) return candidate;
	}
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** The instant as ISO 8601 in the zone's local time, to the second: "2026-11-26T09:00:00-05:00". */
export function isoWithOffset(ms: number, zone: string): string {
	const whole = Math.floor(ms / SECOND) * SECOND;
	const offset = offsetAt(zone, whole);
	const local = new Date(whole + offset).toISOString().replace(/\.\d{3}Z$/, '');
	const seconds = Math.abs(offset) / SECOND;
	const extraSeconds = seconds % 60 === 0 ? '' : `:${twoDigits(seconds % 60)}`;
	return `${local}${offset < 0 ? '-' : '+'}${twoDigits(Math.floor(seconds / 3600))}:${twoDigits(
		Math.floor(seconds / 60) % 60,
	)}${extraSeconds}`;
}

/** Thrown instead of placing a call outside its window: Create outputs the item as deferred, not failed. */
export class CallDeferred extends NodeOperationError {
	constructor(
		node: INode,
		readonly nextCallAt: string,
		readonly reason: string,
	) {
		super(node, reason);
	}
}

export function nextCallTime(hours: ItemHours | undefined, atMs: number): number | undefined {
	return hours ? nextWindowStart(hours.window, hours.zones, atMs) : atMs;
}

export function leadTime(hours: ItemHours | undefined, ms: number, fallbackZone: string): string {
	return isoWithOffset(ms, hours?.zones[0] ?? fallbackZone);
}

/** Why the item may not be dialled now; checked at the decision and just before each send. */
export function deferralOf(
	node: INode,
	hours: ItemHours | undefined,
	to: string,
	nowMs: number,
): CallDeferred | undefined {
	if (!hours || isInsideWindow(hours.window, hours.zones, nowMs)) return undefined;
	const next = nextWindowStart(hours.window, hours.zones, nowMs);
	const nextAt = next === undefined ? '' : isoWithOffset(next, hours.zones[0]);
	const opens =
		next === undefined ? 'it does not open again within a week' : `it opens next at ${nextAt}`;
	const reason = `${to} was not called: it is outside Calling Hours (${hours.described}), and ${opens}.`;
	return new CallDeferred(node, nextAt, reason);
}

/**
 * llama-scatter: the scatter sampler in the Sampling settings and in the requests.
 *
 * The fields, their ranges, help texts and the preset names come from the library's table of
 * fields and its presets (scatter-table.generated.ts, made by scatter-core/src/made.rs).
 * Each number field is synced with the server's value from /props like the built-in ones, and is
 * sent only when the user set it: a preset chosen here is then not overridden by the server's
 * values of the other fields, and a cleared field leaves the server's own settings in force.
 */

import { SettingsFieldType, SyncableParameterType } from '$lib/enums';
import type { SettingsEntry } from '$lib/types';
import { SCATTER_FIELDS, SCATTER_PRESETS, type ScatterField } from './scatter-table.generated';

/** The request field that sets every scatter_* value to a preset of the library. */
export const SCATTER_PRESET_KEY = 'scatter_preset';

/** The value of a select that sends nothing: the server's own settings decide. */
const UNSET = '';

/** "scatter_strength_min" -> "Scatter strength min", "scatter_k" -> "Scatter K". */
function label(name: string): string {
	const words = name.split('_').map((w) => (w.length === 1 ? w.toUpperCase() : w));

	return words.join(' ').replace(/^./, (c) => c.toUpperCase());
}

/** The help text as the settings show it: HTML, so the table's "<=" is escaped. */
function fieldHelp(field: ScatterField): string {
	const rest =
		field.kind === 'flag' ? '' : ` Accepted: ${field.min} to ${field.max}. Empty: the server's value.`;
	const text = `Scatter: ${field.help}.${rest}`;

	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fieldEntry(field: ScatterField): SettingsEntry {
	if (field.kind === 'flag') {
		return {
			defaultValue: UNSET,
			help: fieldHelp(field),
			key: field.name,
			label: label(field.name),
			options: [
				{ label: "Server's value", value: UNSET },
				{ label: 'On', value: 'true' },
				{ label: 'Off', value: 'false' }
			] as SettingsEntry['options'],
			sync: { paramType: SyncableParameterType.BOOLEAN, serverKey: field.name },
			type: SettingsFieldType.SELECT
		};
	}

	return {
		defaultValue: undefined,
		help: fieldHelp(field),
		key: field.name,
		label: label(field.name),
		sync: { paramType: SyncableParameterType.NUMBER, serverKey: field.name },
		type: SettingsFieldType.INPUT
	};
}

/** The Sampling section's scatter entries: the preset, then the fields in the table's order. */
export const SCATTER_SETTINGS: SettingsEntry[] = [
	{
		defaultValue: UNSET,
		help: "Scatter: set every scatter value to a preset of the library; the fields below, where set, override it. None: the server's settings.",
		key: SCATTER_PRESET_KEY,
		label: 'Scatter preset',
		options: [
			{ label: 'None', value: UNSET },
			...SCATTER_PRESETS.map((name) => ({ label: name, value: name }))
		] as SettingsEntry['options'],
		type: SettingsFieldType.SELECT
	},
	...SCATTER_FIELDS.map(fieldEntry)
];

function isSet(value: unknown): boolean {
	return value !== undefined && value !== null && value !== UNSET;
}

/**
 * The scatter_* request fields among `values` (the settings, or request options made from them)
 * that the user set, typed as the server reads them. A number that does not parse is sent as
 * null, which the server refuses with a message naming the field.
 */
export function scatterRequestFields(values: object): Record<string, string | number | boolean> {
	const settings = values as Record<string, unknown>;
	const fields: Record<string, string | number | boolean> = {};
	const preset = settings[SCATTER_PRESET_KEY];

	if (typeof preset === 'string' && isSet(preset)) fields[SCATTER_PRESET_KEY] = preset;

	for (const field of SCATTER_FIELDS) {
		const value = settings[field.name];

		if (!isSet(value)) continue;

		fields[field.name] = field.kind === 'flag' ? value === true || value === 'true' : Number(value);
	}

	return fields;
}

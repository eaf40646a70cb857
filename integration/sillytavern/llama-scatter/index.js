/**
 * llama-scatter for SillyTavern: the scatter sampler's preset and fields in the extension settings,
 * stored with each Text Completion preset, and sent to llama.cpp's server (API type llama.cpp only).
 *
 * The fields, their kinds, ranges and help texts and the preset names come from the library's table
 * (fields.js, made by scatter-core/src/made.rs): nothing here lists them. A field left empty sends
 * nothing, so a preset chosen here is not undone by the server's values of the other fields, and an
 * empty panel sends no scatter field at all: the server's own settings (--scatter-preset) apply.
 *
 * Nothing is sent to a server whose /props has no scatter (a stock llama-server would ignore the fields
 * and the sampler name, and the user would think scatter has no effect), nor to one whose /props could
 * not be read; the panel says which. /props is read through SillyTavern's own server, as SillyTavern
 * reads it, so the connection's API key goes with it.
 */
import { SCATTER_FIELDS, SCATTER_PRESETS } from './fields.js';

const context = SillyTavern.getContext();
/** The extension field of a Text Completion preset that holds the values set here. */
const KEY = 'llama_scatter';
/** Text Completion's preset manager. */
const TEXT_COMPLETION = 'textgenerationwebui';
/** SillyTavern's API type of llama.cpp's server: the only one these fields are sent to. */
const LLAMACPP = 'llamacpp';
const PRESET = 'scatter_preset';
/** How long a /props read may take before the server counts as unread. */
const PROPS_TIMEOUT_MS = 5000;
/** Per server URL: the promise of its /props check (readProps). */
const checks = new Map();

/** "scatter_strength_min" -> "strength min". */
function label(name) {
    return name.replace(/^scatter_/, '').replaceAll('_', ' ');
}

/** The values stored with the selected Text Completion preset: {scatter_preset, scatter_<name>}, each set one. */
function stored() {
    const value = context.getPresetManager(TEXT_COMPLETION)?.readPresetExtensionField({ path: KEY });
    return value && typeof value === 'object' ? value : {};
}

async function store(values) {
    await context.getPresetManager(TEXT_COMPLETION)?.writePresetExtensionField({ path: KEY, value: values });
}

/**
 * A field's value as llama-server reads it, from what the panel holds (text, or a stored value): a
 * boolean for a flag; a number in the field's range, whole for an integer kind (the server's rule).
 * undefined for an empty value; an Error naming the field and its range for any other.
 */
function parse(field, value) {
    if (value === '' || value === undefined || value === null) return undefined;
    if (field.kind === 'flag') {
        if (value === true || value === 'true') return true;
        if (value === false || value === 'false') return false;
        return new Error(`${label(field.name)}: expected on or off`);
    }
    const number = typeof value === 'number' ? value : Number(String(value).trim());
    const whole = field.kind !== 'float';
    if (typeof value === 'boolean' || !Number.isFinite(number) || number < field.min || number > field.max ||
        (whole && !Number.isInteger(number))) {
        return new Error(`${label(field.name)}: expected ${whole ? 'an integer' : 'a number'} from ${field.min} to ${field.max}`);
    }
    return number;
}

/** The request fields of stored values: the preset if it is the library's, and every valid field. */
export function requestFields(values) {
    const fields = {};
    if (SCATTER_PRESETS.includes(values[PRESET])) fields[PRESET] = values[PRESET];
    for (const field of SCATTER_FIELDS) {
        const value = parse(field, values[field.name]);
        if (value !== undefined && !(value instanceof Error)) fields[field.name] = value;
    }
    return fields;
}

/**
 * Reads a server's /props through SillyTavern's server (the connection's API key added there), within
 * PROPS_TIMEOUT_MS: {scatter, read, params, message}; never rejects.
 */
async function readProps(url) {
    try {
        const response = await fetch('/api/backends/text-completions/props', {
            method: 'POST',
            headers: context.getRequestHeaders(),
            body: JSON.stringify({ api_server: url, api_type: LLAMACPP, model: context.textCompletionSettings?.llamacpp_model }),
            signal: AbortSignal.timeout(PROPS_TIMEOUT_MS),
        });
        if (!response.ok) {
            return { scatter: false, read: false, message: `${url}/props could not be read (HTTP ${response.status}: is the server up, and its API key set in the connection?); scatter is not sent` };
        }
        const params = (await response.json())?.default_generation_settings?.params ?? {};
        if (!('scatter_enabled' in params)) {
            return { scatter: false, read: true, message: `${url} has no scatter (a llama.cpp without llama-scatter): scatter is not sent` };
        }
        return { scatter: true, read: true, params, message: `scatter ${params.scatter_enabled ? 'on' : 'off'} by default; its values are shown in the empty fields` };
    } catch (error) {
        return { scatter: false, read: false, message: `${url}/props did not answer (${error.message}); scatter is not sent` };
    }
}

/** The check of `url`, kept until the connection changes; one that could not read /props is not kept,
 * so the next request asks again. */
function check(url) {
    if (!checks.has(url)) {
        checks.set(url, readProps(url).then(result => {
            if (!result.read) checks.delete(url);
            return result;
        }));
    }
    return checks.get(url);
}

/** Adds the scatter fields to a llama.cpp request that has scatter, and scatter to its sampler order before temperature. */
async function onSettingsReady(params) {
    if (params?.api_type !== LLAMACPP) return;
    const fields = requestFields(stored());
    if (Object.keys(fields).length === 0 || !params.api_server || !(await check(params.api_server)).scatter) return;
    Object.assign(params, fields);
    if (Array.isArray(params.samplers) && !params.samplers.includes('scatter')) {
        const samplers = [...params.samplers];
        const at = samplers.indexOf('temperature');
        samplers.splice(at < 0 ? samplers.length : at, 0, 'scatter');
        params.samplers = samplers;
    }
}

function element(tag, attributes = {}, children = []) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    node.append(...children);
    return node;
}

function option(value, text) {
    return element('option', { value }, [text]);
}

/** One row of the panel: a select for the preset and the flags, a number input for the rest. */
function row(name, help, input) {
    input.id = `llama_scatter_${name}`;
    input.dataset.field = name;
    return element('div', { class: 'llama-scatter-row', title: help }, [element('label', { for: input.id }, [label(name)]), input]);
}

function fieldInput(field) {
    if (field.kind === 'flag') {
        return element('select', { class: 'text_pole' }, [option('', "server's value"), option('true', 'on'), option('false', 'off')]);
    }
    return element('input', {
        class: 'text_pole', type: 'number', min: String(field.min), max: String(field.max),
        step: field.kind === 'float' ? 'any' : '1', placeholder: "server's value",
    });
}

function panel() {
    const rows = [
        row(PRESET, "Sets every scatter value to a preset of the library; the fields below, where set, override it.",
            element('select', { class: 'text_pole' }, [option('', 'none'), ...SCATTER_PRESETS.map(name => option(name, name))])),
        ...SCATTER_FIELDS.map(field => row(field.name, `${field.help}; accepted: ${field.min} to ${field.max}`, fieldInput(field))),
    ];
    const content = element('div', { class: 'inline-drawer-content' }, [
        element('div', { class: 'llama-scatter-note', id: 'llama_scatter_server' }, ['Server: not checked yet']),
        element('div', { class: 'llama-scatter-note' }, ['Stored with the Text Completion preset; sent to llama.cpp only. Empty: the server\'s value.']),
        ...rows,
        element('div', { class: 'llama-scatter-note', id: 'llama_scatter_message' }, []),
        element('div', { class: 'menu_button', id: 'llama_scatter_clear' }, ['Clear']),
    ]);
    const header = element('div', { class: 'inline-drawer-toggle inline-drawer-header' }, [
        element('b', {}, ['Scatter (llama.cpp)']),
        element('div', { class: 'inline-drawer-icon fa-solid fa-circle-chevron-down down' }, []),
    ]);
    return element('div', { class: 'llama-scatter-settings' }, [element('div', { class: 'inline-drawer' }, [header, content])]);
}

function inputs() {
    return [...document.querySelectorAll('.llama-scatter-settings [data-field]')];
}

/** Shows the stored values of the selected preset. */
function show() {
    const values = stored();
    for (const input of inputs()) {
        const value = values[input.dataset.field];
        input.value = value === undefined || value === null ? '' : String(value);
        input.classList.remove('llama-scatter-refused');
    }
    document.getElementById('llama_scatter_message').textContent = '';
}

/** Stores what the panel holds; a value the server would refuse is named and not stored. */
async function save() {
    const values = {};
    const refused = [];
    for (const input of inputs()) {
        const name = input.dataset.field;
        const field = SCATTER_FIELDS.find(f => f.name === name);
        const value = field ? parse(field, input.value) : (input.value || undefined);
        input.classList.toggle('llama-scatter-refused', value instanceof Error);
        if (value instanceof Error) refused.push(value.message);
        else if (value !== undefined) values[name] = value;
    }
    const message = document.getElementById('llama_scatter_message');
    message.textContent = refused.length ? `Not sent: ${refused.join('; ')}` : '';
    try {
        await store(values);
    } catch (error) {
        message.textContent = `Not stored: ${error.message}`;
    }
}

/** The llama.cpp server the connection names, or undefined for another API type. */
function connectedUrl() {
    const settings = context.textCompletionSettings;
    return settings?.type === LLAMACPP ? settings?.server_urls?.[LLAMACPP] || undefined : undefined;
}

/** The connection the server line describes (null: none yet). */
let described = null;

/** The server line again, where the connection changed (connecting to another server with the same
 * model changes no online status, so the settings' saves are watched too). */
function recheckIfMoved() {
    return connectedUrl() === described ? undefined : checkServer();
}

/** The line about the connected server: whether it has scatter, and its values (llama-server's /props), read anew. */
async function checkServer() {
    const line = document.getElementById('llama_scatter_server');
    const url = connectedUrl();
    described = url;
    if (!url) {
        line.textContent = 'Server: not a llama.cpp connection (scatter fields are sent to llama.cpp only)';
        return;
    }
    checks.delete(url);
    const result = await check(url);
    if (described !== url) return; // the connection moved on while /props was read
    for (const input of inputs()) {
        const value = result.params?.[input.dataset.field];
        if (input.tagName === 'INPUT') input.placeholder = typeof value === 'number' ? String(Number(value.toPrecision(6))) : "server's value";
    }
    line.textContent = `Server: ${result.message}`;
}

function init() {
    const container = document.getElementById('extensions_settings2') ?? document.getElementById('extensions_settings');
    container.append(panel());
    for (const input of inputs()) input.addEventListener('change', save);
    document.getElementById('llama_scatter_clear').addEventListener('click', () => {
        for (const input of inputs()) input.value = '';
        return save();
    });
    const { eventSource, eventTypes } = context;
    eventSource.on(eventTypes.TEXT_COMPLETION_SETTINGS_READY, onSettingsReady);
    for (const event of [eventTypes.PRESET_CHANGED, eventTypes.SETTINGS_LOADED]) eventSource.on(event, show);
    for (const event of [eventTypes.ONLINE_STATUS_CHANGED, eventTypes.MAIN_API_CHANGED]) eventSource.on(event, checkServer);
    eventSource.on(eventTypes.SETTINGS_UPDATED, recheckIfMoved);
    show();
    checkServer();
}

init();

// Made from scatter-core/src/fields.rs by scatter-core/src/made.rs (cargo xtask made): edit those, not this file.

export const SCATTER_PRESETS = ['subtle', 'creative', 'adaptive', 'collision', 'adaptive-absorb'];

/** The request fields: name, kind ('int', 'float', 'flag', 'seed'), accepted range, help. */
export const SCATTER_FIELDS = [
	{ name: 'scatter_k', kind: 'int', min: 0, max: 2147483647, help: 'size of the medium, the top-K candidates that take part; <= 1 disables' },
	{ name: 'scatter_strength', kind: 'float', min: 0, max: 1, help: 'blend of the direct (0) and the rank-smoothed (1) distribution, 0 disables' },
	{ name: 'scatter_radius', kind: 'float', min: 0, max: 16, help: 'radius of the Gaussian kernel in ranks, larger moves mass across more ranks; 0 disables' },
	{ name: 'scatter_steps', kind: 'int', min: 0, max: 8, help: 'diffusion passes, n passes ~ one pass of radius*sqrt(n); 0 disables' },
	{ name: 'scatter_adaptive', kind: 'flag', min: 0, max: 1, help: 'strength follows the entropy of the medium' },
	{ name: 'scatter_strength_min', kind: 'float', min: 0, max: 1, help: 'lower clamp of the adaptive strength' },
	{ name: 'scatter_strength_max', kind: 'float', min: 0, max: 1, help: 'upper clamp of the adaptive strength' },
	{ name: 'scatter_entropy_target', kind: 'float', min: 0, max: 1, help: 'normalised entropy at which adaptive mode uses the strength' },
	{ name: 'scatter_absorption', kind: 'float', min: 0, max: 1000, help: 'repeated-token damping p*exp(-absorption*count), keep it low; 0 disables' },
	{ name: 'scatter_absorption_last_n', kind: 'int', min: 0, max: 65536, help: 'history window of absorption in tokens; 0 disables' },
	{ name: 'scatter_collision', kind: 'float', min: 0, max: 1, help: 'probability per token that scattering happens, mean free path ~ 1/collision tokens; 0 disables' },
];

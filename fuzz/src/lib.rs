//! What the fuzz targets share: the twelve sampler parameters as raw bits
//! (so every f32 pattern — NaN, ±inf, −0, subnormals — and every i32 comes
//! up), turned into the core's `Params`.

use arbitrary::Arbitrary;
use scatter_core::Params;

#[derive(Arbitrary, Debug)]
pub struct RawParams {
    k: i32,
    strength: u32,
    radius: u32,
    steps: i32,
    adaptive: bool,
    strength_min: u32,
    strength_max: u32,
    entropy_target: u32,
    absorption: u32,
    absorption_last_n: i32,
    collision: u32,
    seed: u32,
}

impl RawParams {
    pub fn params(&self) -> Params {
        let f = f32::from_bits;
        Params {
            k: self.k,
            strength: f(self.strength),
            radius: f(self.radius),
            steps: self.steps,
            adaptive: self.adaptive,
            strength_min: f(self.strength_min),
            strength_max: f(self.strength_max),
            entropy_target: f(self.entropy_target),
            absorption: f(self.absorption),
            absorption_last_n: self.absorption_last_n,
            collision: f(self.collision),
            seed: self.seed,
        }
    }
}

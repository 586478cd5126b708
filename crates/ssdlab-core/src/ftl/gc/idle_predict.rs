//! Idle-time prediction GC: the simple alternatives Kang, Shin, Yoo (TECS 2017 §6.2, Tables 11
//! and 12) compare against — predict the next inter-request interval by a moving average
//! (`idle-ma`) or by exponential smoothing (`idle-es`), and after each request on a plane with
//! at most T_GC free blocks run as many partial-GC steps as fit before the predicted next
//! arrival. Intensive GC is the same as for the RL schedulers. The paper gives neither the
//! window nor the smoothing factor: `gc.partial.ma_window` (8) and `gc.partial.es_alpha` (0.5).

use std::collections::VecDeque;

use super::context::{GcContext, GcScheduler, RequestInfo};
use super::partial::{run_within, PartialGc};
use crate::config::DeviceConfig;
use crate::error::Result;

/// How the next interval is predicted.
#[derive(Debug, Clone)]
enum Predictor {
    MovingAverage {
        window: usize,
        recent: VecDeque<u64>,
        sum: u64,
    },
    Smoothing {
        alpha: f64,
        estimate: Option<f64>,
    },
}

impl Predictor {
    fn observe(&mut self, interval: u64) {
        match self {
            Predictor::MovingAverage {
                window,
                recent,
                sum,
            } => {
                recent.push_back(interval);
                *sum += interval;
                if recent.len() > *window {
                    *sum -= recent.pop_front().unwrap_or(0);
                }
            }
            Predictor::Smoothing { alpha, estimate } => {
                let x = interval as f64;
                *estimate = Some(estimate.map_or(x, |e| *alpha * x + (1.0 - *alpha) * e));
            }
        }
    }
    fn predict(&self) -> u64 {
        match self {
            Predictor::MovingAverage { recent, sum, .. } => sum / (recent.len().max(1) as u64),
            Predictor::Smoothing { estimate, .. } => estimate.unwrap_or(0.0) as u64,
        }
    }
}

/// The idle-predicting scheduler.
#[derive(Debug, Clone)]
pub struct IdlePredict {
    predictor: Predictor,
    partial: PartialGc,
    t_gc: u32,
    smoothing: bool,
}

impl IdlePredict {
    /// `smoothing`: exponential smoothing (`idle-es`) instead of the moving average (`idle-ma`).
    pub fn new(cfg: &DeviceConfig, smoothing: bool) -> Self {
        let p = &cfg.gc.partial;
        let predictor = if smoothing {
            Predictor::Smoothing {
                alpha: p.es_alpha,
                estimate: None,
            }
        } else {
            Predictor::MovingAverage {
                window: p.ma_window as usize,
                recent: VecDeque::new(),
                sum: 0,
            }
        };
        IdlePredict {
            predictor,
            partial: PartialGc::new(cfg),
            t_gc: cfg.gc.threshold_blocks,
            smoothing,
        }
    }
}

impl GcScheduler for IdlePredict {
    fn name(&self) -> &'static str {
        if self.smoothing {
            "idle-es"
        } else {
            "idle-ma"
        }
    }
    fn after_page_write(&mut self, _plane: u32, _now: u64, _gc: &mut GcContext) -> Result<()> {
        Ok(())
    }
    fn after_request(&mut self, info: &RequestInfo, gc: &mut GcContext) -> Result<()> {
        if !info.is_write && !info.is_read {
            return Ok(());
        }
        self.predictor.observe(info.interval_ns);
        self.partial
            .run_intensive(gc, info.completion_ns, info.is_write)?;
        if !info.is_write {
            return Ok(());
        }
        let until = info.arrival_ns + self.predictor.predict();
        for p in 0..gc.ftl.planes() {
            if !self.partial.is_on(p)
                && gc.ftl.free_blocks(p) <= self.t_gc
                && until > info.completion_ns
            {
                run_within(gc, &self.partial, p, info.completion_ns, until)?;
            }
        }
        Ok(())
    }
}

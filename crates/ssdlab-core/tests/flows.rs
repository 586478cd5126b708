//! Several flows (issue 61): one flow through the multi-queue path is the single-queue run; the
//! arbitration's shares of two saturated flows are the NVMe specification's; per-flow results
//! add up; bad flow specs are one line naming the flow and the field.

use serde_json::{json, Value};
use ssdlab_core::api;

use crate::support::json_run::run;
use crate::support::traces::shared;

fn closed(qd: u32) -> Value {
    json!({"mode": "closed-loop", "queue_depth": qd})
}

fn writes(requests: u64) -> Value {
    json!({"kind": "synthetic", "pattern": "uniform", "requests": requests})
}

fn reads(requests: u64) -> Value {
    json!({"kind": "synthetic", "pattern": "uniform", "requests": requests, "read_fraction": 1.0})
}

/// The result without what names the workload (and the flows' own section).
fn device_side(mut v: Value) -> Value {
    let o = v.as_object_mut().expect("result object");
    o.remove("workload");
    o.remove("flows");
    v
}

#[test]
fn one_flow_gives_the_single_queue_results_exactly() {
    let mut cases = vec![
        (
            "tiny",
            vec![],
            json!({"kind": "synthetic", "pattern": "hotcold", "requests": 6000, "read_fraction": 0.3}),
            json!({"seed": 3, "replay": closed(8), "precondition": {"random_passes": 0.5}}),
        ),
        (
            "tiny",
            vec!["write_cache.mode=write-back", "write_cache.size_mib=1"],
            writes(5000),
            json!({"seed": 4, "replay": closed(4)}),
        ),
        (
            "yoo-qlc",
            vec![],
            json!({"kind": "synthetic", "pattern": "zipf", "requests": 3000, "arrival": {"kind": "poisson", "iops": 20000.0}}),
            json!({"seed": 5}),
        ),
        (
            "tiny",
            vec![],
            writes(4000),
            json!({"seed": 6, "timing": false}),
        ),
    ];
    let fin = shared("spc_financial1/fin1");
    if fin.exists() {
        cases.push((
            "mqsim-small",
            vec![],
            json!({"kind": "trace", "path": fin, "format": "fin1", "lba_map": "dense"}),
            json!({"seed": 1, "replay": {"mode": "open-loop", "time_scale": 0.2}}),
        ));
    } else {
        eprintln!(
            "SKIPPED: the Financial1 excerpt is not at {}",
            fin.display()
        );
    }
    for (device, overrides, workload, options) in cases {
        let alone = run(device, &overrides, &workload, &options).expect("single run");
        let flows = json!({"kind": "flows", "flows": [{"workload": workload, "range": "shared"}]});
        let one = run(device, &overrides, &flows, &options).expect("one flow");
        let f = one["flows"][0].clone();
        assert_eq!(
            device_side(one),
            device_side(alone.clone()),
            "{device} {workload}"
        );
        assert_eq!(f["requests"], alone["requests"]);
        if options["timing"] != json!(false) {
            assert_eq!(f["latency_us"], alone["latency_us"], "{device} {workload}");
            assert_eq!(f["queue_wait_us"]["max"], json!(0.0));
        }
        // One queue has nothing to arbitrate: weighted round robin, whatever the flow's class
        // and the burst, is round robin (the tenants experiment runs each flow alone once for
        // both).
        for priority in ["urgent", "low"] {
            let mut o: Vec<&str> = overrides.clone();
            o.extend(["host.arbitration=\"weighted-round-robin\"", "host.burst=4"]);
            let flows = json!({"kind": "flows", "flows": [
                {"workload": workload, "range": "shared", "priority": priority}]});
            let w = run(device, &o, &flows, &options).expect("one flow, wrr");
            assert_eq!(
                w["flows"][0]["latency_us"], f["latency_us"],
                "{device} {priority}"
            );
            assert_eq!(
                device_side(w),
                device_side(alone.clone()),
                "{device} {priority}"
            );
        }
    }
}

/// Two flows whose queues never empty, through `slots` command slots: each flow's share of
/// the first `n` commands fetched.
fn shares(arbitration: &str, extra: &[&str], priorities: [&str; 2], n: u64) -> [u64; 2] {
    let mut overrides = vec![
        format!("host.arbitration={arbitration}"),
        "host.command_slots=4".to_string(),
    ];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let o: Vec<&str> = overrides.iter().map(|s| s.as_str()).collect();
    let flows = json!({"kind": "flows", "flows": [
        {"name": "a", "workload": reads(100_000), "replay": closed(32), "priority": priorities[0]},
        {"name": "b", "workload": writes(100_000), "replay": closed(32), "priority": priorities[1]},
    ]});
    let r = run("tiny", &o, &flows, &json!({"seed": 1, "max_requests": n})).expect("flows run");
    assert_eq!(r["requests"]["total"], json!(n));
    let count = |i: usize| r["flows"][i]["requests"]["total"].as_u64().expect("count");
    [count(0), count(1)]
}

#[test]
fn saturated_flows_share_the_commands_as_the_specification_says() {
    // Round robin: one command each in turn, priorities ignored.
    assert_eq!(
        shares("round-robin", &[], ["high", "low"], 4000),
        [2000, 2000]
    );
    // A burst of 4 takes 4 from a queue before moving on: equal after whole turns.
    assert_eq!(
        shares("round-robin", &["host.burst=4"], ["low", "low"], 4000),
        [2000, 2000]
    );
    // Weighted round robin: rounds of high_weight high and low_weight low commands.
    let w = ["host.high_weight=3", "host.low_weight=1"];
    assert_eq!(
        shares("weighted-round-robin", &w, ["high", "low"], 4000),
        [3000, 1000]
    );
    let w = ["host.medium_weight=5", "host.low_weight=3"];
    assert_eq!(
        shares("weighted-round-robin", &w, ["low", "medium"], 4000),
        [1500, 2500]
    );
    // Urgent has strict priority: the low queue gets nothing while the urgent one has work.
    assert_eq!(
        shares("weighted-round-robin", &[], ["low", "urgent"], 3000),
        [0, 3000]
    );
}

#[test]
fn a_slot_limit_makes_commands_wait_and_the_wait_counts_in_their_latency() {
    let flows = json!({"kind": "flows", "flows": [
        {"name": "r", "workload": reads(3000), "replay": closed(8)},
        {"name": "w", "workload": writes(3000), "replay": closed(8)},
    ]});
    let r = run(
        "tiny",
        &["host.command_slots=2"],
        &flows,
        &json!({"seed": 2}),
    )
    .expect("run");
    let total: u64 = (0..2)
        .map(|i| r["flows"][i]["requests"]["total"].as_u64().unwrap())
        .sum();
    assert_eq!(total, r["requests"]["total"].as_u64().unwrap());
    assert_eq!(total, 6000);
    for i in 0..2 {
        let f = &r["flows"][i];
        let wait = f["queue_wait_us"]["mean"].as_f64().unwrap();
        let lat = f["latency_us"]["all"]["mean"].as_f64().unwrap();
        assert!(
            wait > 0.0,
            "flow {i} never waited with 2 slots and 16 commands queued"
        );
        assert!(
            lat > wait,
            "flow {i}: latency {lat} not above its wait {wait}"
        );
        assert!(f["iops"].as_f64().unwrap() > 0.0);
    }
    // Partitions: flow 0 the first half of the space, flow 1 the second.
    let (p0, n0) = (
        r["flows"][0]["first_page"].as_u64().unwrap(),
        r["flows"][0]["pages"].as_u64().unwrap(),
    );
    let p1 = r["flows"][1]["first_page"].as_u64().unwrap();
    assert_eq!((p0, p0 + n0), (0, p1));
    // Unlimited slots: nothing waits.
    let r = run("tiny", &[], &flows, &json!({"seed": 2})).expect("run");
    assert_eq!(r["flows"][0]["queue_wait_us"]["max"], json!(0.0));
}

#[test]
fn several_flows_keep_the_invariants_and_are_deterministic() {
    let flows = json!({"kind": "flows", "flows": [
        {"name": "hot", "workload": {"kind": "synthetic", "pattern": "hotcold", "requests": 4000}, "replay": closed(4), "priority": "high"},
        {"name": "seq", "workload": {"kind": "synthetic", "pattern": "sequential", "requests": 3000, "request_pages": 4}, "replay": closed(2), "range": {"start": 0.5, "size": 0.5}},
        {"name": "all", "workload": reads(2000), "range": "shared", "replay": {"mode": "open-loop"}},
    ]});
    let opts = json!({"seed": 9, "check_every": 97, "precondition": {"random_passes": 0.5}, "replay": closed(8)});
    let o = [
        "host.arbitration=weighted-round-robin",
        "host.command_slots=3",
    ];
    let a = run("tiny", &o, &flows, &opts).expect("run");
    let b = run("tiny", &o, &flows, &opts).expect("run again");
    assert_eq!(a, b);
    assert!(a["gc_invocations"].as_u64().unwrap() > 0, "GC never ran");
    let opts2 = json!({"seed": 10, "check_every": 97, "precondition": {"random_passes": 0.5}, "replay": closed(8)});
    let c = run("tiny", &o, &flows, &opts2).expect("another seed");
    assert_ne!(a["latency_us"], c["latency_us"]);
}

#[test]
fn bad_flow_specs_name_the_flow_and_the_field() {
    let cases = [
        (
            json!({"kind": "flows", "flows": [{"workload": writes(10), "qd": 4}]}),
            "flows[0]",
        ),
        (
            json!({"kind": "flows", "flows": [{"name": "x"}]}),
            "workload",
        ),
        (json!({"kind": "flows", "flows": []}), "expected 1 to"),
        (
            json!({"kind": "flows", "flows": [
                {"name": "a", "workload": writes(10), "range": {"start": 0.0, "size": 0.6}},
                {"name": "b", "workload": writes(10), "range": {"start": 0.5, "size": 0.5}}]}),
            "flows[1] (b): range: pages",
        ),
        (
            json!({"kind": "flows", "flows": [{"name": "a", "workload": writes(10)}, {"name": "a", "workload": writes(10)}]}),
            "flows[1] (a): name",
        ),
        (
            json!({"kind": "flows", "flows": [{"workload": writes(10), "range": {"start": 0.9, "size": 0.2}}]}),
            "flows[0] (flow0): range.size",
        ),
        (
            json!({"kind": "flows", "flows": [{"workload": writes(10), "replay": {"mode": "closed-loop", "queue_depth": 0}}]}),
            "flows[0] (flow0): replay.queue_depth",
        ),
        (
            json!({"kind": "flows", "flows": [{"workload": {"kind": "flows", "flows": []}}]}),
            "flows[0] (flow0): workload",
        ),
        (
            json!({"kind": "flows", "flows": [{"workload": {"kind": "preset", "name": "nope", "requests": 5}}]}),
            "flows[0] (flow0): workload",
        ),
    ];
    for (spec, want) in cases {
        let e = run("tiny", &[], &spec, &json!({}))
            .expect_err("a bad spec ran")
            .to_string();
        assert!(e.contains(want), "{spec}: {e}");
        assert!(!e.contains('\n') && e.len() < 400, "{e}");
    }
    let e = api::load_device("tiny", "tiny", &["host.burst=3".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("host.burst"), "{e}");
    let e = api::load_device("tiny", "tiny", &["host.arbitration=fifo".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("host.arbitration") && e.contains("round-robin"),
        "{e}"
    );
}

#[test]
fn the_tenants_experiment_reports_slowdowns_against_each_flow_alone() {
    let rows: Vec<String> = ["rr", "wrr", "wrr+read-first"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let opts = api::parse_options(
        &json!({"seed": 1, "replay": closed(8), "precondition": {"random_passes": 0.5}})
            .to_string(),
    )
    .expect("options");
    let text = api::tenants_experiment(
        "tiny",
        "tiny",
        &[],
        None,
        1500,
        opts,
        &rows,
        0,
        &Default::default(),
    )
    .expect("tenants");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["flows"], json!(["reader", "writer"]));
    for r in &rows {
        let c = &v["configs"][r];
        let s: Vec<f64> = c["slowdown"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(s.iter().all(|&x| x > 0.0), "{r}: {s:?}");
        let fairness = c["fairness"].as_f64().unwrap();
        let want =
            s.iter().cloned().fold(f64::INFINITY, f64::min) / s.iter().cloned().fold(0.0, f64::max);
        assert!((fairness - want).abs() < 1e-12, "{r}");
        // Each slowdown is the flow's mean latency together over alone.
        for i in 0..2 {
            let t = c["together"]["flows"][i]["latency_us"]["all"]["mean"]
                .as_f64()
                .unwrap();
            let a = c["alone"][i]["flows"][0]["latency_us"]["all"]["mean"]
                .as_f64()
                .unwrap();
            assert!((s[i] - t / a).abs() < 1e-12);
            // Alone, a flow keeps its range.
            assert_eq!(
                c["alone"][i]["flows"][0]["first_page"],
                c["together"]["flows"][i]["first_page"]
            );
            assert_eq!(
                c["alone"][i]["requests"]["total"],
                c["together"]["flows"][i]["requests"]["total"]
            );
        }
    }
    // With one queue the arbitration has nothing to choose: each flow alone is the same run
    // under round robin and weighted round robin.
    assert_eq!(v["configs"]["rr"]["alone"], v["configs"]["wrr"]["alone"]);
    // The writer's GC slows the reader down.
    assert!(v["configs"]["rr"]["slowdown"][0].as_f64().unwrap() > 1.0);
}

/// A reader beside a bulk writer on `tiny`, together, under `scheduler`.
fn reader_beside_writer(scheduler: &str) -> Value {
    let flows = json!({"kind": "flows", "flows": [
        {"name": "reader", "workload": reads(3000), "replay": closed(2)},
        {"name": "writer", "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 6000, "request_pages": 4}, "replay": closed(16)},
    ]});
    let opts = json!({"seed": 1, "precondition": {"random_passes": 1.0}});
    run(
        "tiny",
        &[&format!("flash.scheduler=\"{scheduler}\"")],
        &flows,
        &opts,
    )
    .expect("run")
}

#[test]
fn the_fair_scheduler_lets_the_low_intensity_flow_pass_the_bulk_writer() {
    let fcfs = reader_beside_writer("fcfs");
    let fair = reader_beside_writer("fair");
    let mean = |r: &Value, i: usize| r["flows"][i]["latency_us"]["all"]["mean"].as_f64().unwrap();
    let sched = &fair["flash"]["scheduling"];
    assert!(sched["reads_passing"].as_u64().unwrap() > 0, "{sched}");
    // The reader waits less; passing moves times, not data.
    assert!(
        mean(&fair, 0) < mean(&fcfs, 0),
        "reader {} vs fcfs {}",
        mean(&fair, 0),
        mean(&fcfs, 0)
    );
    for k in ["erases", "gc_pages_copied", "host_pages_written"] {
        assert_eq!(fair[k], fcfs[k], "{k}");
    }
}

/// Random multi-flow setups on `tiny` (2–4 flows of random patterns, replays, priorities and
/// ranges, under a random arbitration, slot count and flash scheduler): the FTL's invariants
/// hold after every few requests, every flow's commands are counted once, and the same seed
/// gives the same result bit for bit.
#[test]
fn random_multi_flow_setups_keep_the_invariants_and_are_deterministic() {
    use rand::Rng;
    let cases = crate::support::fuzz::env_u64("SSDLAB_FLOW_CASES").unwrap_or(24);
    let mut rng = ssdlab_core::rng::stream(61, "test-flows");
    let patterns = ["uniform", "hotcold", "zipf", "sequential"];
    let priorities = ["urgent", "high", "medium", "low"];
    let schedulers = ["fcfs", "read-first", "preemptible-gc", "fair"];
    for case in 0..cases {
        let n = rng.gen_range(2..=4usize);
        let shared = rng.gen_bool(0.3);
        let flows: Vec<Value> = (0..n)
            .map(|i| {
                let replay = if rng.gen_bool(0.7) {
                    closed(rng.gen_range(1..=16))
                } else {
                    json!({"mode": "open-loop", "time_scale": 1.0})
                };
                let mut w = json!({"kind": "synthetic", "pattern": patterns[rng.gen_range(0..4)],
                                   "requests": rng.gen_range(200..1500u64),
                                   "read_fraction": rng.gen_range(0.0..1.0f64),
                                   "request_pages": rng.gen_range(1..=4u32)});
                if replay["mode"] == "open-loop" {
                    w["arrival"] =
                        json!({"kind": "poisson", "iops": rng.gen_range(500.0..20000.0f64)});
                }
                json!({"name": format!("f{i}"), "workload": w, "replay": replay,
                       "priority": priorities[rng.gen_range(0..4)],
                       "range": if shared { json!("shared") } else { json!("partition") }})
            })
            .collect();
        let mut spec = json!({"kind": "flows", "flows": flows});
        let arbitration = if rng.gen_bool(0.5) {
            "round-robin"
        } else {
            "weighted-round-robin"
        };
        let overrides = [
            format!("host.arbitration=\"{arbitration}\""),
            format!("host.command_slots={}", rng.gen_range(0..8u32)),
            format!("host.burst={}", 1u32 << rng.gen_range(0..3)),
            format!("flash.scheduler=\"{}\"", schedulers[rng.gen_range(0..4)]),
        ];
        // Half the cases on an FDP device, each flow through a random handle (issue 62; test
        // mode then checks every page's handle and group too).
        let mut overrides = overrides.to_vec();
        if rng.gen_bool(0.5) {
            let handles = rng.gen_range(1..=4u16);
            let kind = ["initially-isolated", "persistently-isolated"][rng.gen_range(0..2)];
            overrides.push(format!("fdp.handles={handles}"));
            overrides.push(format!("fdp.handle_type=\"{kind}\""));
            for f in spec["flows"].as_array_mut().expect("flows") {
                f["placement"] = json!(rng.gen_range(0..handles));
            }
        }
        let o: Vec<&str> = overrides.iter().map(|s| s.as_str()).collect();
        let opts = json!({"seed": case, "check_every": 7, "precondition": {"random_passes": 0.3}});
        let a = run("tiny", &o, &spec, &opts)
            .unwrap_or_else(|e| panic!("case {case} ({overrides:?}, {spec}): {e}"));
        let total: u64 = (0..n)
            .map(|i| a["flows"][i]["requests"]["total"].as_u64().unwrap())
            .sum();
        assert_eq!(
            total,
            a["requests"]["total"].as_u64().unwrap(),
            "case {case}"
        );
        let b = run("tiny", &o, &spec, &opts).expect("again");
        assert_eq!(a, b, "case {case}: same seed, different result");
    }
}

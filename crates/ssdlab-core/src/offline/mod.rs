//! Offline cleaning (Shafaei & Desnoyers): exhaustive, pruned and MCTS search for near-optimal
//! cleaning schedules in the single-frontier demand-cleaning model.

//! A bounded single-producer, single-consumer queue whose producer, once it has filled the
//! queue and gone to sleep, is woken only when the consumer has drained it to a low-water mark
//! — not at every item taken, as `std::sync::mpsc::sync_channel` wakes a blocked sender.
//!
//! Why (docs/speed.md, "The parse thread's hand-off wakes the reader once a refill, not once a
//! batch"): the trace reader parses a plain trace ~2× faster than a timed replay consumes it
//! (9.2–10 M lines/s against 4.4 M requests/s), so with a plain bounded channel it fills the
//! channel, sleeps, and is woken by the simulation's every `recv`: one futex wake a batch, paid on
//! the simulation's thread (on the project's VM an inter-processor interrupt to a halted virtual
//! CPU). A gzip trace, whose reader keeps up only just and so rarely sleeps, replayed faster than
//! the same trace in plain text. With a low-water mark the reader sleeps once per refill of several
//! batches, and the consumer wakes it only then; the consumer is woken only when it has found the
//! queue empty.
//!
//! Either side going away — dropped, or unwound by a panic — is seen by the other: a sender
//! whose receiver has gone gets its item back at once, a receiver whose sender has gone gets
//! the items sent before, then `None`.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

struct State<T> {
    items: VecDeque<T>,
    /// The sender waits for room: wake it when the queue is down to `low`.
    sender_asleep: bool,
    /// The receiver waits for an item: wake it at the next one.
    receiver_asleep: bool,
    sender_gone: bool,
    receiver_gone: bool,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Where the receiver waits.
    filled: Condvar,
    /// Where the sender waits.
    drained: Condvar,
    capacity: usize,
    low: usize,
}

impl<T> Shared<T> {
    /// The state; a panic while it was held cannot leave it torn (every change under the lock
    /// is a single assignment or a queue operation), so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The producing end; see the module documentation.
pub(crate) struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// The consuming end; see the module documentation.
pub(crate) struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

/// A queue of at most `capacity` items whose sleeping sender is woken when `low` are left.
pub(crate) fn queue<T>(capacity: usize, low: usize) -> (Sender<T>, Receiver<T>) {
    assert!(
        capacity > 0 && low < capacity,
        "handoff queue: need 0 <= low < capacity"
    );
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::with_capacity(capacity),
            sender_asleep: false,
            receiver_asleep: false,
            sender_gone: false,
            receiver_gone: false,
        }),
        filled: Condvar::new(),
        drained: Condvar::new(),
        capacity,
        low,
    });
    (
        Sender {
            shared: Arc::clone(&shared),
        },
        Receiver { shared },
    )
}

impl<T> Sender<T> {
    /// Queues `item`, waiting while the queue is full; `Err(item)` when the receiver has gone.
    pub(crate) fn send(&self, item: T) -> Result<(), T> {
        let sh = &*self.shared;
        let mut s = sh.lock();
        while s.items.len() >= sh.capacity && !s.receiver_gone {
            s.sender_asleep = true;
            s = sh.drained.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        // Awake (woken, or spuriously with room): no wake-up is owed to it.
        s.sender_asleep = false;
        if s.receiver_gone {
            return Err(item);
        }
        s.items.push_back(item);
        if s.receiver_asleep {
            s.receiver_asleep = false;
            sh.filled.notify_one();
        }
        Ok(())
    }
}

impl<T> Drop for Sender<T> {
    /// Also runs when the sender's thread unwinds: the receiver then stops waiting.
    fn drop(&mut self) {
        let mut s = self.shared.lock();
        s.sender_gone = true;
        if s.receiver_asleep {
            s.receiver_asleep = false;
            self.shared.filled.notify_one();
        }
    }
}

impl<T> Receiver<T> {
    /// The next item, waiting while the queue is empty; `None` once the sender has gone and
    /// every item it sent has been taken.
    pub(crate) fn recv(&self) -> Option<T> {
        let sh = &*self.shared;
        let mut s = sh.lock();
        loop {
            if let Some(item) = s.items.pop_front() {
                s.receiver_asleep = false;
                if s.sender_asleep && s.items.len() <= sh.low {
                    s.sender_asleep = false;
                    sh.drained.notify_one();
                }
                return Some(item);
            }
            if s.sender_gone {
                return None;
            }
            s.receiver_asleep = true;
            s = sh.filled.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl<T> Drop for Receiver<T> {
    /// The sender, waiting for room or at its next send, returns its item instead.
    fn drop(&mut self) {
        let mut s = self.shared.lock();
        s.receiver_gone = true;
        s.items.clear();
        if s.sender_asleep {
            s.sender_asleep = false;
            self.shared.drained.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_arrive_in_order_and_end_with_the_sender() {
        for (capacity, low) in [(1, 0), (4, 1), (8, 2), (8, 7)] {
            let (tx, rx) = queue(capacity, low);
            let reader = std::thread::spawn(move || {
                for i in 0..10_000u32 {
                    tx.send(i).unwrap();
                }
            });
            let got: Vec<u32> = std::iter::from_fn(|| rx.recv()).collect();
            reader.join().unwrap();
            assert_eq!(
                got,
                (0..10_000).collect::<Vec<_>>(),
                "capacity {capacity}, low {low}"
            );
            assert_eq!(rx.recv(), None);
        }
    }

    #[test]
    fn a_waiting_sender_gets_its_item_back_when_the_receiver_goes() {
        let (tx, rx) = queue(2, 0);
        let sender = std::thread::spawn(move || {
            let mut sent = 0;
            while tx.send(sent).is_ok() {
                sent += 1;
            }
            sent
        });
        assert_eq!(rx.recv(), Some(0));
        drop(rx);
        // It filled the queue, waited, and stopped: it sent at most the items taken plus the
        // queue's room and the one in flight.
        assert!(sender.join().unwrap() <= 4);
    }

    #[test]
    fn a_waiting_receiver_sees_a_panicking_sender_go() {
        let (tx, rx) = queue::<u32>(2, 0);
        let sender = std::thread::spawn(move || {
            tx.send(7).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
            panic!("reader bug");
        });
        assert_eq!(rx.recv(), Some(7));
        assert_eq!(rx.recv(), None);
        assert!(sender.join().is_err());
    }

    #[test]
    fn a_sleeping_sender_is_woken_only_at_the_low_water_mark() {
        let (tx, rx) = queue(4, 1);
        for i in 0..4 {
            tx.send(i).unwrap();
        }
        tx.shared.lock().sender_asleep = true; // as if it had gone to sleep on a full queue
        assert_eq!(rx.recv(), Some(0));
        assert_eq!(rx.recv(), Some(1));
        assert!(tx.shared.lock().sender_asleep, "woken early, with 2 left");
        assert_eq!(rx.recv(), Some(2));
        assert!(!tx.shared.lock().sender_asleep, "still asleep with 1 left");
    }
}

//! The pacing stage: waits for an attempt's slot in its operation's rate-limit bucket, and
//! feeds what the answer says back into it (the rate the server reports, a 429)
//! (docs/decisions/007-rate-limits.md). With shared state the bucket is the account's, kept
//! by a `PaceBackend` (Redis: `Shared`); while that cannot answer, the process paces
//! locally at its share of the rate (docs/decisions/008-shared-state.md).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::error::Error;
use crate::operation_row::Operation;
use crate::ratelimit::{parse_rate_header, Bucket, BucketKey, Limiters, Plan};
use crate::request::retrying::{deadline_after, Attempt, Failure};
use crate::shared::{Shared, FALLBACK_SHARE};
use crate::transport::HttpResponse;

/// An operation's bucket of the account as a back-end names it, with the plan it is paced
/// at.
#[derive(Clone, Copy)]
pub(crate) struct BucketAt<'a> {
    /// The region group's name (`NA`, `EU`, `FE`).
    pub group: &'a str,
    /// The operation's id.
    pub op: &'a str,
    pub plan: Plan,
}

/// What `PaceBackend::reserve` answers: `Some(Ok(wait))` reserved, `Some(Err(wait))` the
/// slot is further than `max_wait` (nothing reserved), `None` the back-end cannot say.
pub(crate) type Reserved = Option<Result<Duration, Duration>>;

/// Where an account's buckets are kept for every process of it (`Shared`: Redis).
pub(crate) trait PaceBackend: Sync {
    /// Reserves the next slot of the account's bucket `at`.
    fn reserve(
        &self,
        at: BucketAt<'_>,
        max_wait: Duration,
    ) -> impl Future<Output = Reserved> + Send;
    /// Shares the rate the server reported (`at`'s plan: the one reserved at before).
    fn set_rate(&self, at: BucketAt<'_>, rate: f64) -> impl Future<Output = ()> + Send;
    /// The server answered 429: the account's bucket is empty for every process.
    fn throttled(&self, at: BucketAt<'_>) -> impl Future<Output = ()> + Send;
}

impl PaceBackend for Shared {
    fn reserve(
        &self,
        at: BucketAt<'_>,
        max_wait: Duration,
    ) -> impl Future<Output = Reserved> + Send {
        let plan = at.plan;
        Shared::reserve(self, at.group, at.op, plan.rate, plan.burst, max_wait)
    }
    fn set_rate(&self, at: BucketAt<'_>, rate: f64) -> impl Future<Output = ()> + Send {
        Shared::set_rate(self, at.group, at.op, rate, at.plan.rate, at.plan.burst)
    }
    fn throttled(&self, at: BucketAt<'_>) -> impl Future<Output = ()> + Send {
        Shared::throttled(self, at.group, at.op, at.plan.rate, at.plan.burst)
    }
}

/// Which bucket paced an attempt.
pub(crate) enum Paced {
    /// The operation's bucket (shared through the back-end when there is one).
    Main,
    /// This process's share, while the back-end is unreachable.
    Fallback(Arc<Bucket>),
}

/// The pacing of one call: its operation's bucket in this process, and the account's
/// back-end when there is shared state.
pub(crate) struct Pacing<'a, B: PaceBackend = Shared> {
    /// The operation's bucket for the call's party and region group.
    pub bucket: &'a Arc<Bucket>,
    /// The account's buckets (`Settings::shared_state`).
    pub backend: Option<&'a B>,
    /// Where the fallback bucket is kept (the client's context's).
    pub limiters: &'a Limiters,
    pub op: &'static Operation,
    /// The region group's name (`NA`, `EU`, `FE`).
    pub group: &'static str,
    /// The credentials' party (`Credentials::party`), asked for only when the fallback
    /// bucket is needed.
    pub party: &'a (dyn Fn() -> u64 + Sync),
}

impl<B: PaceBackend> Pacing<'_, B> {
    /// Waits for attempt `a`'s slot; a slot past the deadline ends the operation (a timeout
    /// naming `operation_timeout`) without waiting.
    pub async fn attempt(
        &self,
        a: &Attempt,
        operation_timeout: Duration,
    ) -> Result<Paced, Failure> {
        let asked = Instant::now();
        let paced = self.wait(a.deadline).await;
        paced_wait(
            self.op.id,
            self.group,
            self.bucket,
            paced.as_ref(),
            asked.elapsed(),
        );
        paced.ok_or_else(|| {
            Failure::stop(
                Error::timeout(format!(
                    "the rate limit would delay the call past its {} s deadline",
                    operation_timeout.as_secs_f64()
                ))
                .with_attempts(a.number - 1),
            )
        })
    }

    /// Paces one attempt: through the account's shared bucket when there is a back-end (the
    /// in-process line first, so this process's waiters stay in order), else, or while the
    /// back-end is unreachable, locally (then at `FALLBACK_SHARE` of the rate: the other
    /// processes of the account send too). `None` when the slot is past `deadline`;
    /// otherwise which bucket paced the call (a 429 throttles that one).
    pub async fn wait(&self, deadline: Instant) -> Option<Paced> {
        let (b, op, group) = (self.bucket, self.op, self.group);
        let local = |b: &Arc<Bucket>| {
            let b = b.clone();
            async move {
                deadline_after(b.wait_estimate()) <= deadline
                    && tokio::time::timeout_at(deadline, b.acquire()).await.is_ok()
            }
        };
        let Some(shared) = self.backend else {
            return local(b).await.then_some(Paced::Main);
        };
        // As the local bucket: the first in line takes a slot only when one is open and
        // holds none while it sleeps (at most 100 ms), so a rate learned meanwhile applies
        // at once and no process sleeps on a slot reserved at an old rate.
        {
            let _turn = b.line().lock().await;
            loop {
                let at = BucketAt {
                    group,
                    op: op.id,
                    plan: b.plan(),
                };
                match shared.reserve(at, Duration::ZERO).await {
                    Some(Ok(_)) => return Some(Paced::Main),
                    Some(Err(wait)) => {
                        if deadline_after(wait) > deadline {
                            return None;
                        }
                        tokio::time::sleep(wait.min(Duration::from_millis(100))).await;
                    }
                    None => break,
                }
            }
        }
        // The back-end cannot say: this process's share, paced here.
        let key = BucketKey {
            party: (self.party)(),
            group,
            operation: op.id,
            fallback: true,
        };
        let rate = b.plan().rate * FALLBACK_SHARE;
        let fallback = self.limiters.bucket(key, Plan::new(rate, 1));
        // It follows the rate the server reports (learned by the main bucket), at the share
        // its 429s left it (`fallback_outcome`).
        fallback.set_rate(b.plan().rate * fallback.share(FALLBACK_SHARE));
        local(&fallback).await.then_some(Paced::Fallback(fallback))
    }

    /// What an answer says to the buckets: the rate the server reports is adopted (and
    /// shared when it changed), and a 429 throttles the bucket that paced the call — the
    /// fallback one while the back-end is unreachable, else the shared (and this
    /// process's) one.
    pub async fn feedback(&self, paced: &Paced, resp: &HttpResponse) {
        let (b, op, group) = (self.bucket, self.op, self.group);
        if let Some(rate) = resp.rate_limit().as_deref().and_then(parse_rate_header) {
            let before = b.plan();
            if b.set_rate(rate) {
                if let Some(shared) = self.backend {
                    let at = BucketAt {
                        group,
                        op: op.id,
                        plan: before,
                    };
                    shared.set_rate(at, rate).await;
                }
            }
        }
        match paced {
            Paced::Fallback(f) => fallback_outcome(b, f, resp.status == 429),
            Paced::Main if resp.status == 429 => {
                b.throttled();
                if let Some(shared) = self.backend {
                    let at = BucketAt {
                        group,
                        op: op.id,
                        plan: b.plan(),
                    };
                    shared.throttled(at).await;
                }
            }
            Paced::Main => {}
        }
    }
}

/// How a call paced by the fallback bucket ended. Each process takes `FALLBACK_SHARE` of
/// the rate while the shared state is unreachable, which more than two processes overrun: a
/// 429 halves this process's share (down to an eighth of it) and pushes its next slot out,
/// and each answer that is not a 429 regrows it by a tenth of the full share (additive
/// increase, multiplicative decrease: N processes settle near the limit together whatever N
/// is, instead of each sending at half of it).
fn fallback_outcome(main: &Bucket, fallback: &Bucket, throttled: bool) {
    let full = FALLBACK_SHARE;
    let share = if throttled {
        fallback.cut_share(full, full / 8.0)
    } else {
        fallback.grow_share(full, full / 10.0)
    };
    fallback.set_rate(main.plan().rate * share);
    if throttled {
        fallback.throttled();
    }
}

/// A wait for the rate limit over `VISIBLE_WAIT` is logged at INFO: a call that seems to
/// hang says why, naming the bucket (operation, region group, rate) and the time.
fn paced_wait(
    op: &'static str,
    group: &str,
    main: &Bucket,
    paced: Option<&Paced>,
    waited: Duration,
) {
    const VISIBLE_WAIT: Duration = Duration::from_secs(1);
    if waited <= VISIBLE_WAIT {
        return;
    }
    let (rate, whose) = match paced {
        Some(Paced::Fallback(b)) => (
            b.plan().rate,
            " (this process's share: the shared state is unreachable)",
        ),
        _ => (main.plan().rate, ""),
    };
    log::info!(
        target: "abws",
        "{op}: waited {:.1} s for the rate limit (bucket {op} of region group {group}, \
         {rate} requests/s{whose})",
        waited.as_secs_f64()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::Mutex;

    /// A back-end answering `reserve` as scripted (then `None`), noting what it was told.
    #[derive(Default)]
    struct Fake {
        answers: Mutex<VecDeque<Option<Result<Duration, Duration>>>>,
        rates: Mutex<Vec<f64>>,
        throttles: Mutex<u32>,
    }

    impl Fake {
        fn answering(
            answers: impl IntoIterator<Item = Option<Result<Duration, Duration>>>,
        ) -> Fake {
            Fake {
                answers: Mutex::new(answers.into_iter().collect()),
                ..Fake::default()
            }
        }
    }

    impl PaceBackend for Fake {
        fn reserve(&self, _: BucketAt<'_>, _: Duration) -> impl Future<Output = Reserved> + Send {
            let answer = self.answers.lock().unwrap().pop_front().flatten();
            async move { answer }
        }
        fn set_rate(&self, _: BucketAt<'_>, rate: f64) -> impl Future<Output = ()> + Send {
            self.rates.lock().unwrap().push(rate);
            async {}
        }
        fn throttled(&self, _: BucketAt<'_>) -> impl Future<Output = ()> + Send {
            *self.throttles.lock().unwrap() += 1;
            async {}
        }
    }

    const PARTY: &(dyn Fn() -> u64 + Sync) = &|| 7;

    fn pacing<'a>(
        bucket: &'a Arc<Bucket>,
        backend: Option<&'a Fake>,
        limiters: &'a Limiters,
    ) -> Pacing<'a, Fake> {
        Pacing {
            bucket,
            backend,
            limiters,
            op: &crate::operations::PLACE_ORDER,
            group: "FE",
            party: PARTY,
        }
    }

    fn bucket(rate: f64, burst: u32) -> Arc<Bucket> {
        Arc::new(Bucket::new(Plan::new(rate, burst)))
    }

    fn answer(status: u16, rate: Option<&str>) -> HttpResponse {
        let mut headers = http::HeaderMap::new();
        if let Some(r) = rate {
            headers.insert(crate::wire::HEADER_RATE_LIMIT, r.parse().unwrap());
        }
        HttpResponse {
            status,
            headers,
            body: bytes::Bytes::new(),
        }
    }

    fn in_secs(s: u64) -> Instant {
        Instant::now() + Duration::from_secs(s)
    }

    #[tokio::test(start_paused = true)]
    async fn a_slot_of_the_shared_bucket_paces_the_call() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::answering([Some(Ok(Duration::ZERO))]);
        let paced = pacing(&b, Some(&fake), &l).wait(in_secs(10)).await;
        assert!(matches!(paced, Some(Paced::Main)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_shared_bucket_is_waited_for_in_short_sleeps() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::answering([
            Some(Err(Duration::from_millis(250))),
            Some(Err(Duration::from_millis(50))),
            Some(Ok(Duration::ZERO)),
        ]);
        let start = Instant::now();
        let paced = pacing(&b, Some(&fake), &l).wait(in_secs(10)).await;
        assert!(matches!(paced, Some(Paced::Main)));
        // At most 100 ms per sleep, so a rate learned meanwhile applies at once.
        assert_eq!(start.elapsed(), Duration::from_millis(150));
    }

    #[tokio::test(start_paused = true)]
    async fn a_shared_slot_past_the_deadline_is_refused_at_once() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::answering([Some(Err(Duration::from_secs(20)))]);
        let start = Instant::now();
        let p = pacing(&b, Some(&fake), &l);
        assert!(p.wait(in_secs(10)).await.is_none());
        assert_eq!(start.elapsed(), Duration::ZERO);
        let a = Attempt::new(2, in_secs(10), Duration::from_secs(5), false);
        fake.answers
            .lock()
            .unwrap()
            .push_back(Some(Err(Duration::from_secs(20))));
        let e = p.attempt(&a, Duration::from_secs(10)).await.err().unwrap();
        assert!(e.stop);
        assert_eq!(e.error.kind(), crate::error::ErrorKind::Timeout);
        assert_eq!(e.error.attempts(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_local_slot_past_the_deadline_is_refused() {
        let (b, l) = (bucket(1.0, 1), Limiters::default());
        let p = pacing(&b, None, &l);
        assert!(matches!(p.wait(in_secs(10)).await, Some(Paced::Main)));
        // The next slot is a second away: refused without waiting.
        let start = Instant::now();
        assert!(p
            .wait(Instant::now() + Duration::from_millis(500))
            .await
            .is_none());
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert!(matches!(p.wait(in_secs(10)).await, Some(Paced::Main)));
    }

    #[tokio::test(start_paused = true)]
    async fn without_the_back_end_the_process_paces_at_its_share() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::answering([None]);
        let Some(Paced::Fallback(f)) = pacing(&b, Some(&fake), &l).wait(in_secs(10)).await else {
            panic!("paced by the main bucket");
        };
        assert_eq!(f.plan().rate, 2.0 * FALLBACK_SHARE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_halves_the_fallback_share_and_other_answers_regrow_it() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::default();
        let p = pacing(&b, Some(&fake), &l);
        let Some(paced @ Paced::Fallback(_)) = p.wait(in_secs(10)).await else {
            panic!("paced by the main bucket");
        };
        let Paced::Fallback(f) = &paced else {
            unreachable!()
        };
        p.feedback(&paced, &answer(429, None)).await;
        assert_eq!(f.plan().rate, 2.0 * FALLBACK_SHARE / 2.0);
        p.feedback(&paced, &answer(200, None)).await;
        assert_eq!(
            f.plan().rate,
            2.0 * (FALLBACK_SHARE / 2.0 + FALLBACK_SHARE / 10.0)
        );
        // The account's bucket was not told: the back-end is unreachable.
        assert_eq!(*fake.throttles.lock().unwrap(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_throttles_the_bucket_here_and_the_accounts() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::default();
        let p = pacing(&b, Some(&fake), &l);
        p.feedback(&Paced::Main, &answer(200, None)).await;
        assert_eq!(*fake.throttles.lock().unwrap(), 0);
        p.feedback(&Paced::Main, &answer(429, None)).await;
        assert_eq!(*fake.throttles.lock().unwrap(), 1);
        assert!(b.wait_estimate() > Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reported_rate_is_adopted_and_shared_only_when_it_changed() {
        let (b, l) = (bucket(2.0, 2), Limiters::default());
        let fake = Fake::default();
        let p = pacing(&b, Some(&fake), &l);
        p.feedback(&Paced::Main, &answer(200, Some("2.0"))).await;
        p.feedback(&Paced::Main, &answer(200, Some("0.5"))).await;
        p.feedback(&Paced::Main, &answer(200, Some("0.5"))).await;
        assert_eq!(b.plan().rate, 0.5);
        assert_eq!(*fake.rates.lock().unwrap(), [0.5]);
    }
}

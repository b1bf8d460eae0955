//! Root-cause triage (`specs/runner.md` §9): one bug spans many failing cases, so each failing
//! case's worst bug finding is shrunk to a minimal stream and chunk vector against the
//! candidate, and failures whose minimal forms and verdicts say the same thing are grouped
//! into one [`RootCause`], worst first, each with a minimal replay.
//!
//! - [`skeleton`]: what a minimal stream's shape is (its markers, text as placeholders);
//! - [`naming`]: a root cause's title and slug.
//!
//! Replaying, judging and shrinking are [`crate::fuzz::replayer`]'s, shared with `tch fuzz`:
//! the expected events of a shrunk stream are the reference's (with the case's prefill).

pub mod naming;
pub mod skeleton;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::corpus::Case;
use crate::dialect::Dialect;
use crate::event::Event;
use crate::fuzz::replayer::{Replayer, StreamCandidate, Unavailable, reference_events};
use crate::judge::{CaseReport, Finding, Layer, Severity, Status, Verdict};
use crate::protocol::Begin;
use crate::split::{ChunkSpec, Realism, SplitError, SplitKind, realism};
use crate::supervisor::{ReplayError, Transcript};
use crate::tools::Registry;
use naming::Naming;
pub use skeleton::Skeleton;

/// One failing case, as triage takes it.
#[derive(Debug, Clone)]
pub struct FailingCase {
    /// The case's id (`hermes/after-call`).
    pub id: String,
    /// Its dialect.
    pub dialect: Dialect,
    /// Its stream.
    pub stream: String,
    /// The generation prompt it continues (`""` for none).
    pub prefill: String,
    /// Whether its request sets options (`specs/protocol.md` §6), which the shrinking
    /// replays do not send: then it is not shrunk (R9.2).
    pub with_options: bool,
    /// Its worst *bug* finding (divergences are not bugs, R3.5): what is shrunk.
    pub finding: Finding,
}

/// How much triage may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Wall time for the whole triage; zero shrinks nothing.
    Time(Duration),
    /// At most this many replays, whatever they take: the same result on every machine (for
    /// tests); zero shrinks nothing.
    Replays(usize),
}

/// How to triage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TriageOptions {
    /// The whole triage's budget (R9.5).
    pub budget: Budget,
    /// Reductions one case's shrink may try (each is one to four replays).
    pub tries_per_case: usize,
}

impl Default for TriageOptions {
    fn default() -> Self {
        TriageOptions {
            budget: Budget::Time(Duration::from_secs(60)),
            tries_per_case: 400,
        }
    }
}

/// A root cause's minimal replay: what to feed the candidate to see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Minimal {
    /// The stream, shrunk (or the case's own when not shrunk).
    pub stream: String,
    /// Its chunk vector (`specs/runner.md` R1.1).
    pub chunks: ChunkSpec,
    /// The generation prompt it continues (`""` for none).
    pub prefill: String,
}

/// One root cause: failing cases whose minimal forms and verdicts say the same thing (R9.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootCause {
    /// `RC1`, `RC2`, … in the order of [`triage`]'s result (R9.4).
    pub id: String,
    /// Kebab-case, from the dialect, the verdicts and where the bug shows; at most 60 chars,
    /// unique within the run: its page is `NN-slug.md`.
    pub slug: String,
    /// One line, fit for an issue's title.
    pub title: String,
    /// The dialect.
    #[serde(serialize_with = "serialize_dialect")]
    pub dialect: Dialect,
    /// The verdicts' severity (R4.3).
    pub severity: Severity,
    /// The shown member's verdicts; every member's finding shares their primary one (R9.3).
    pub verdicts: Vec<Verdict>,
    /// Their layer.
    pub layer: Layer,
    /// Their realism (R1.4): `synthetic` only when every member is.
    pub realism: Realism,
    /// The member cases' ids, in the order they were given (report order).
    pub cases: Vec<String>,
    /// The member whose minimal form is shown.
    pub case: String,
    /// The minimal replay.
    pub minimal: Minimal,
    /// Whether `minimal` was shrunk (false: the case's own stream and chunks, R9.5).
    pub shrunk: bool,
    /// The reference's events for the minimal stream (with its prefill).
    #[serde(serialize_with = "serialize_as_lines")]
    pub expected: Vec<Event>,
    /// The candidate's raw events on the minimal replay (none after a fault).
    #[serde(serialize_with = "serialize_as_lines")]
    pub actual: Vec<Event>,
    /// The minimal finding's detail, a line per verdict.
    pub detail: String,
    /// The command that replays it; left empty here for the caller, who knows the run's
    /// options (`crate::report::Replay`).
    pub replay: String,
}

fn serialize_dialect<S: serde::Serializer>(dialect: &Dialect, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(dialect.name())
}

/// Events as `report.json` holds them: each its JSON line, in a string (R6.5).
fn serialize_as_lines<S: serde::Serializer>(events: &[Event], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(events.iter().map(Event::to_json_line))
}

/// What triage found, and what it spent.
#[derive(Debug, Clone, PartialEq)]
pub struct Triage {
    /// The root causes, worst first (R9.4).
    pub root_causes: Vec<RootCause>,
    /// Replays asked of the candidate.
    pub replays: usize,
    /// Cases whose finding was shrunk.
    pub cases_shrunk: usize,
    /// Cases whose finding did not show again on the first replay (flaky, or judged against
    /// a corpus reading the reference does not give): grouped unshrunk.
    pub not_reproduced: Vec<String>,
    /// Why shrinking stopped before every case was shrunk, if it did.
    pub stopped: Option<String>,
}

/// Why triage could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TriageError {
    /// A finding's chunk vector does not fit its case's stream.
    #[error("case {case}: its finding's chunk vector {chunks} does not fit its stream: {source}")]
    Chunks {
        /// The case.
        case: String,
        /// The chunk vector.
        chunks: String,
        /// Why.
        source: SplitError,
    },
}

/// Triage of `cases` (each with its worst bug finding) through `candidate`, with `tools`
/// (the registry the cases were replayed with): shrinks worst severity first while the
/// budget lasts (R9.2, R9.5), then groups (R9.3) and orders (R9.4).
pub fn triage<C: StreamCandidate>(
    cases: &[FailingCase],
    candidate: &mut C,
    tools: &Arc<Registry>,
    options: &TriageOptions,
) -> Result<Triage, TriageError> {
    let mut forms: Vec<Form> = cases
        .iter()
        .enumerate()
        .map(|(index, case)| Form::unshrunk(index, case, tools))
        .collect::<Result<_, _>>()?;
    let mut meter = Meter {
        budget: options.budget,
        started: Instant::now(),
        replays: 0,
    };
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| cases[i].finding.severity);
    let mut stopped = None;
    let mut not_reproduced = Vec::new();
    for index in order {
        if meter.out() {
            break;
        }
        let form = &mut forms[index];
        if form.layer == Layer::Wire || cases[index].with_options {
            // A wire finding is the server's chunks, and a case's options are its request,
            // neither of which the shrinking replays judge: shown as the case failed (R9.5's
            // unshrunk form).
            continue;
        }
        match shrink_case(&cases[index], form, candidate, &mut meter, tools, options) {
            Ok(Shown::Shrunk | Shown::OutOfBudget) => {}
            Ok(Shown::NotReproduced) => not_reproduced.push(cases[index].id.clone()),
            Err(unavailable) => {
                stopped = Some(unavailable.to_string());
                break;
            }
        }
    }
    if stopped.is_none() && forms.iter().any(|f| !f.shrunk) && meter.out() {
        stopped = Some(match options.budget {
            Budget::Time(limit) => format!("the budget of {} s ran out", limit.as_secs_f64()),
            Budget::Replays(limit) => format!("the budget of {limit} replays ran out"),
        });
    }
    let cases_shrunk = forms.iter().filter(|f| f.shrunk).count();
    Ok(Triage {
        root_causes: group(cases, forms, tools),
        replays: meter.replays,
        cases_shrunk,
        not_reproduced,
        stopped,
    })
}

/// A case's form as grouping sees it: its minimal replay (or its own), and the finding on it.
#[derive(Debug, Clone)]
struct Form {
    /// The case's index in the input.
    index: usize,
    layer: Layer,
    realism: Realism,
    stream: String,
    cuts: Vec<usize>,
    chunks: ChunkSpec,
    shrunk: bool,
    finding: Finding,
    markers: Vec<String>,
}

impl Form {
    /// The case as it failed.
    fn unshrunk(
        index: usize,
        case: &FailingCase,
        tools: &Arc<Registry>,
    ) -> Result<Form, TriageError> {
        let finding = &case.finding;
        let cuts = finding
            .chunks
            .cuts(&case.stream)
            .map_err(|source| TriageError::Chunks {
                case: case.id.clone(),
                chunks: finding.chunks.to_string(),
                source,
            })?;
        let markers = case.dialect.markers(tools);
        Ok(Form {
            index,
            layer: finding.layer,
            realism: finding
                .realism
                .unwrap_or_else(|| realism(&case.stream, &cuts, &markers)),
            stream: case.stream.clone(),
            // A conformance finding is the whole stream's (R9.2), and so is a non-streaming
            // result's (R2.3).
            cuts: match finding.layer {
                Layer::Streaming | Layer::Wire if finding.kind != SplitKind::NonStreaming => cuts,
                _ => Vec::new(),
            },
            chunks: finding.chunks.clone(),
            shrunk: false,
            finding: finding.clone(),
            markers,
        })
    }

    /// Whether a finding says the same as this form's (R9.2): the same verdicts, layer and
    /// realism, and its detail quotes the same of the dialect's markers (the text it says was
    /// lost, leaked or misread holds the same markup), so that a lost block of markup does not
    /// shrink into a lost lone `<`, another bug with the same verdicts.
    fn same(&self, finding: &Finding) -> bool {
        finding.verdicts == self.finding.verdicts
            && finding.layer == self.layer
            && finding.realism == Some(self.realism)
            && quoted_markers(&finding.detail, &self.markers)
                == quoted_markers(&self.finding.detail, &self.markers)
    }
}

/// Which of `markers` (those of two bytes or more, as a skeleton counts them) `detail` quotes.
fn quoted_markers(detail: &str, markers: &[String]) -> Vec<bool> {
    markers
        .iter()
        .filter(|m| m.len() > 1)
        .map(|m| detail.contains(m.as_str()))
        .collect()
}

/// Counts replays against the budget.
struct Meter {
    budget: Budget,
    started: Instant,
    replays: usize,
}

impl Meter {
    fn out(&self) -> bool {
        match self.budget {
            Budget::Time(limit) => self.started.elapsed() >= limit,
            Budget::Replays(limit) => self.replays >= limit,
        }
    }
}

/// The candidate, refusing replays once the budget is out.
struct Metered<'a, C> {
    candidate: &'a mut C,
    meter: &'a mut Meter,
}

impl<C: StreamCandidate> StreamCandidate for Metered<'_, C> {
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError> {
        if self.meter.out() {
            return Err(ReplayError::GaveUp(0));
        }
        self.meter.replays += 1;
        self.candidate.run_stream(begin, chunks)
    }

    fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, ReplayError> {
        if self.meter.out() {
            return Err(ReplayError::GaveUp(0));
        }
        self.meter.replays += 1;
        self.candidate.run_non_streaming(begin, text)
    }
}

/// How a case's shrink ended.
enum Shown {
    /// Its finding showed again and was shrunk (maybe partly, when the budget ran out).
    Shrunk,
    /// Its finding did not show again on its own stream and chunks.
    NotReproduced,
    /// The budget ran out before its finding was replayed.
    OutOfBudget,
}

/// Shrinks one case's form in place (R9.2); `Err` when the candidate can no longer be
/// replayed (not when the budget ran out: the shrink keeps what it reached).
fn shrink_case<C: StreamCandidate>(
    case: &FailingCase,
    form: &mut Form,
    candidate: &mut C,
    meter: &mut Meter,
    tools: &Arc<Registry>,
    options: &TriageOptions,
) -> Result<Shown, Unavailable> {
    let metered = Metered { candidate, meter };
    let mut replayer = Replayer::new(metered, case.dialect, &case.prefill, tools, &case.id);
    // A non-streaming finding (R2.3) is the whole stream against its non-streaming result.
    replayer.set_non_streaming(form.finding.kind == SplitKind::NonStreaming);
    // As `tch run` judges (R2.1): chunk-dependence is told from flakiness by replaying again.
    let recheck = form.finding.verdicts.iter().any(|v| {
        matches!(
            v,
            Verdict::ChunkDependent | Verdict::Flaky | Verdict::NonStreamingDiffers
        )
    });
    let target = form.clone();
    let mut wanted = |finding: &Finding| target.same(finding);
    // A refusal of [`Metered`] is the budget running out, which is no error; anything else is.
    let out = |replayer: &Replayer<'_, Metered<'_, C>>| replayer.candidate.meter.out();
    let first = match replayer.shows(&form.stream, &form.cuts, recheck, &mut wanted) {
        Ok(Some(finding)) => finding,
        Ok(None) => return Ok(Shown::NotReproduced),
        Err(_) if out(&replayer) => return Ok(Shown::OutOfBudget),
        Err(error) => return Err(error),
    };
    let shrinking = replayer.shrink(
        &form.stream,
        &form.cuts,
        options.tries_per_case,
        recheck,
        &mut wanted,
    );
    form.stream = shrinking.shrunk.stream;
    form.cuts = shrinking.shrunk.cuts;
    form.chunks = ChunkSpec::of_cuts(&form.stream, &form.cuts);
    form.finding = shrinking.last.unwrap_or(first);
    form.shrunk = true;
    match shrinking.stopped {
        Some(error) if !out(&replayer) => Err(error),
        _ => Ok(Shown::Shrunk),
    }
}

/// What makes two failures one root cause (R9.3): where (the dialect's parser, the layer,
/// realism, the streamed or the non-streaming path) and what an agent suffers first (the
/// primary verdict).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    dialect: &'static str,
    layer: Layer,
    synthetic: bool,
    non_streaming: bool,
    primary: Verdict,
}

/// The verdict that says most of a finding (R9.3): of those with the worst severity, the
/// first in [`Verdict::ALL`]; `chunk-dependent`, `flaky` or `non-streaming-differs` only when
/// there is no other.
pub fn primary_verdict(verdicts: &[Verdict]) -> Verdict {
    let severity = Severity::of(verdicts);
    verdicts
        .iter()
        .copied()
        .filter(|v| Severity::of_verdict(*v) == Some(severity))
        .min()
        .or_else(|| verdicts.iter().copied().min())
        .unwrap_or(Verdict::ChunkDependent)
}

/// Groups forms by [`Key`] (R9.3), picks each group's shown form, orders (R9.4), names.
fn group(cases: &[FailingCase], forms: Vec<Form>, tools: &Arc<Registry>) -> Vec<RootCause> {
    let mut groups: BTreeMap<Key, Vec<Form>> = BTreeMap::new();
    for form in forms {
        let case = &cases[form.index];
        let key = Key {
            dialect: case.dialect.name(),
            layer: form.layer,
            synthetic: form.realism == Realism::Synthetic,
            non_streaming: form.finding.has(Verdict::NonStreamingDiffers),
            primary: primary_verdict(&form.finding.verdicts),
        };
        groups.entry(key).or_default().push(form);
    }
    let mut roots: Vec<(Key, Vec<Form>)> = groups.into_iter().collect();
    // R9.4: severity, realistic first, more cases first, then the first member's id.
    roots.sort_by(|(a, a_forms), (b, b_forms)| {
        let first = |forms: &[Form]| cases[forms[0].index].id.clone();
        (
            Severity::of(&[a.primary]),
            a.synthetic,
            std::cmp::Reverse(a_forms.len()),
            first(a_forms),
        )
            .cmp(&(
                Severity::of(&[b.primary]),
                b.synthetic,
                std::cmp::Reverse(b_forms.len()),
                first(b_forms),
            ))
    });
    let mut root_causes: Vec<RootCause> = roots
        .into_iter()
        .enumerate()
        .map(|(n, (key, forms))| root_cause(n, &key, &forms, cases, tools))
        .collect();
    let mut slugs: Vec<String> = root_causes.iter().map(|r| r.slug.clone()).collect();
    naming::unique(&mut slugs);
    for (root, slug) in root_causes.iter_mut().zip(slugs) {
        root.slug = slug;
    }
    root_causes
}

/// The root cause of one group (forms in input order), `RC{n + 1}`.
fn root_cause(
    n: usize,
    key: &Key,
    forms: &[Form],
    cases: &[FailingCase],
    tools: &Arc<Registry>,
) -> RootCause {
    // R9.3: shown is a shrunk form if any, the shortest stream, the fewest chunks, the first.
    let shown = forms
        .iter()
        .min_by_key(|f| (!f.shrunk, f.stream.len(), f.cuts.len(), f.index))
        .expect("a group has a member");
    let case = &cases[shown.index];
    let realism = shown.realism;
    let skeleton = &Skeleton::of(&shown.stream, &shown.markers);
    let naming = Naming {
        dialect: case.dialect.name(),
        verdicts: &shown.finding.verdicts,
        layer: key.layer,
        realism,
        skeleton,
        stream: &shown.stream,
        cuts: &shown.cuts,
        markers: &shown.markers,
    };
    let expected = reference_events(case.dialect, tools, &case.prefill, &shown.stream);
    RootCause {
        id: format!("RC{}", n + 1),
        slug: naming.slug(),
        title: naming.title(),
        dialect: case.dialect,
        // A wire finding's severity is its rules' (`specs/wire.md` §4), not its verdict's.
        severity: shown
            .finding
            .severity
            .unwrap_or_else(|| Severity::of(&shown.finding.verdicts)),
        verdicts: shown.finding.verdicts.clone(),
        layer: key.layer,
        realism,
        cases: forms.iter().map(|f| cases[f.index].id.clone()).collect(),
        case: case.id.clone(),
        minimal: Minimal {
            stream: shown.stream.clone(),
            chunks: shown.chunks.clone(),
            prefill: case.prefill.clone(),
        },
        shrunk: shown.shrunk,
        expected,
        // Invented ids renamed as the report's outputs are (`specs/runner.md` R6.6): a
        // parser's random ids would change the page on every run.
        actual: crate::normalize::rename_invented_ids(&shown.finding.events, &shown.stream),
        detail: shown.finding.detail.clone(),
        replay: String::new(),
    }
}

impl FailingCase {
    /// The failing bug cases of a run (R9.1): every stream case that failed or is a known
    /// failure, with its worst bug finding, in report order. Scaling cases are not streams to
    /// shrink: [`scaling_root_causes`] groups them.
    pub fn of_run(reports: &[CaseReport], cases: &[Case]) -> Vec<FailingCase> {
        reports
            .iter()
            .filter(|r| matches!(r.status, Status::Failed | Status::KnownFailure))
            .filter_map(|report| {
                let case = cases.iter().find(|c| c.id == report.case)?;
                let finding = report.findings.iter().find(|f| f.is_bug())?;
                Some(FailingCase {
                    id: case.id.clone(),
                    dialect: case.dialect,
                    stream: case.stream.clone(),
                    prefill: case.prefill.clone(),
                    with_options: !case.request.set().is_empty(),
                    finding: finding.clone(),
                })
            })
            .collect()
    }
}

/// The root causes of a run's failing scaling cases (`specs/runner.md` §8, R9.7): one per
/// dialect, since one way of buffering serves every family of a dialect; nothing to shrink,
/// the series is the replay.
pub fn scaling_root_causes(reports: &[CaseReport]) -> Vec<RootCause> {
    let mut by_dialect: BTreeMap<&str, Vec<&CaseReport>> = BTreeMap::new();
    for report in reports.iter().filter(|r| {
        r.scaling.is_some()
            && matches!(r.status, Status::Failed | Status::KnownFailure)
            && r.findings.iter().any(Finding::is_bug)
    }) {
        by_dialect.entry(&report.dialect).or_default().push(report);
    }
    by_dialect
        .into_iter()
        .filter_map(|(dialect, members)| {
            let dialect: Dialect = dialect.parse().ok()?;
            let finding = members[0].findings.iter().find(|f| f.is_bug())?;
            let families: Vec<&str> = members
                .iter()
                .filter_map(|m| m.case.rsplit('/').next())
                .collect();
            Some(RootCause {
                id: String::new(),
                slug: naming::shorten(
                    &format!(
                        "{dialect}-{}-{}",
                        finding.verdict_names().replace(", ", "-"),
                        families.join("-")
                    ),
                    naming::MAX_SLUG,
                ),
                title: format!(
                    "{dialect}: {} as the stream grows ({})",
                    if finding.has(Verdict::Superlinear) {
                        "time grows faster than the stream"
                    } else {
                        "fails"
                    },
                    families.join(", ")
                ),
                dialect,
                severity: finding.severity.unwrap_or(Severity::Medium),
                verdicts: finding.verdicts.clone(),
                layer: finding.layer,
                realism: Realism::Realistic,
                cases: members.iter().map(|m| m.case.clone()).collect(),
                case: members[0].case.clone(),
                minimal: Minimal {
                    stream: String::new(),
                    chunks: finding.chunks.clone(),
                    prefill: String::new(),
                },
                shrunk: false,
                expected: Vec::new(),
                actual: Vec::new(),
                detail: finding.detail.clone(),
                replay: finding.replay.clone(),
            })
        })
        .collect()
}

/// Orders `roots` (R9.4: severity, realistic first, more cases first, then the first case's
/// id) and numbers them `RC1`, `RC2`, … in that order, with unique slugs.
pub fn number(roots: &mut [RootCause]) {
    roots.sort_by(|a, b| {
        let key = |r: &RootCause| {
            (
                r.severity,
                r.realism == Realism::Synthetic,
                std::cmp::Reverse(r.cases.len()),
                r.cases.first().cloned(),
            )
        };
        key(a).cmp(&key(b))
    });
    let mut slugs: Vec<String> = roots.iter().map(|r| r.slug.clone()).collect();
    naming::unique(&mut slugs);
    for (n, (root, slug)) in roots.iter_mut().zip(slugs).enumerate() {
        root.id = format!("RC{}", n + 1);
        root.slug = slug;
    }
}

#[cfg(test)]
mod tests;

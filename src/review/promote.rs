//! Promotions (SPEC §12): a private memory whose topic has a layer goes there: a
//! project convention into the file the project keeps its rules in (`CLAUDE.md`
//! when it exists, else `AGENTS.md` when it exists, else a new `CLAUDE.md`; with
//! both, `ambiguous` between them), a personal one into `CLAUDE.local.md`, a
//! project memory into `team/` when a team dir exists.

use crate::memory::{Memory, MemoryType};

use super::classify::{self, Topic};
use super::compare::Item;
use super::propose::{memory_evidence, type_word};
use super::rule::Rule;
use super::{Detail, Input, Kind, Layer, Proposal, target_label};

/// The promotion of a private memory, when its topic has a layer.
pub(super) fn promotion(it: &Item, input: &Input) -> Option<Proposal> {
    let (topic, words) = it.topic.as_ref()?;
    let (topic, words) = (*topic, words.as_slice());
    let project_files = project_files(input);
    let both = project_files.len() == 2;
    let (kind, layer) = kind_and_layer(topic, it.memory.memory_type(), input.team_dir, &project_files)?;
    Some(Proposal {
        n: 0,
        kind,
        memory: it.memory.rel.clone(),
        target: layer.map(|l| target_label(l).to_string()),
        evidence: vec![memory_evidence(it, input.now_ms)],
        score: None,
        reason: reason(it, topic, words, both),
        action: action(it, layer),
        detail: Detail {
            layer,
            layers: layers(project_files, input.team_dir),
            // Moved in from the item once it is classified ([`super::compare::Item::shed`]):
            // a promotion of 20 000 memories does not hold a second copy of each rule.
            paragraph: String::new(),
            why: None,
            others: Vec::new(),
            update: None,
        },
    })
}

/// The memory's topic from its name, description and rule, with the words matched.
pub(super) fn topic(memory: &Memory, rule: &Rule) -> Option<(Topic, Vec<String>)> {
    let about = format!("{} {}", memory.name().unwrap_or_default(), memory.description_text());
    let about_tokens = classify::topic_tokens(&about);
    let rule_tokens = classify::topic_tokens(&rule.paragraph);
    classify::topic(&classify::Subject {
        ty: memory.memory_type(),
        about: &about_tokens,
        rule: &rule_tokens,
        raw_about: &about,
        raw_rule: &rule.paragraph,
    })
}

/// The files the project keeps its rules in: `CLAUDE.md` when it exists, else
/// `AGENTS.md` when it exists, else a new `CLAUDE.md`; both when both exist.
fn project_files(input: &Input) -> Vec<Layer> {
    let has = |l: Layer| input.claude.iter().any(|c| c.layer == l);
    match (has(Layer::Claude), has(Layer::Agents)) {
        (false, true) => vec![Layer::Agents],
        (true, true) => vec![Layer::Claude, Layer::Agents],
        _ => vec![Layer::Claude],
    }
}

/// Every layer a promotion may go to: the project files, `CLAUDE.local.md`, and
/// `team/` when a team dir exists.
fn layers(mut project_files: Vec<Layer>, team_dir: bool) -> Vec<Layer> {
    project_files.push(Layer::Local);
    if team_dir {
        project_files.push(Layer::Team);
    }
    project_files
}

/// The kind of promotion and its default layer (`None`: ambiguous); no
/// promotion for editor preferences.
fn kind_and_layer(
    topic: Topic,
    ty: Option<MemoryType>,
    team_dir: bool,
    project_files: &[Layer],
) -> Option<(Kind, Option<Layer>)> {
    let both = project_files.len() == 2;
    Some(match topic {
        Topic::Editor => return None,
        Topic::Branches => (Kind::Ambiguous, None),
        Topic::Personal => (Kind::Promote, Some(Layer::Local)),
        Topic::Convention if ty == Some(MemoryType::Project) && team_dir => (Kind::Promote, Some(Layer::Team)),
        Topic::Convention if both => (Kind::Ambiguous, None),
        Topic::Convention => (Kind::Promote, Some(project_files[0])),
    })
}

fn reason(it: &Item, topic: Topic, words: &[String], both: bool) -> String {
    let matched = if words.is_empty() {
        String::new()
    } else {
        format!(
            "; matched {}",
            words_list(&words.iter().map(String::as_str).collect::<Vec<_>>())
        )
    };
    format!(
        "{} memory about {}{matched}; topic rule (no similarity threshold){}",
        type_word(it.memory),
        topic.as_str(),
        if both && topic == Topic::Convention {
            "; the project has both CLAUDE.md and AGENTS.md: pick one"
        } else {
            ""
        }
    )
}

fn action(it: &Item, layer: Option<Layer>) -> String {
    match layer {
        Some(Layer::Team) => format!("move {} into team/ (shared with the team)", it.memory.rel),
        Some(l) => format!(
            "append its rule under `## From memory` in {}, then forget {}",
            target_label(l),
            it.memory.rel
        ),
        // Named with the proposal's number, known once the proposals are sorted.
        None => String::new(),
    }
}

/// At most 8 words, `, `-separated.
fn words_list(words: &[&str]) -> String {
    let mut s = words.iter().take(8).copied().collect::<Vec<_>>().join(", ");
    if words.len() > 8 {
        s.push_str(", …");
    }
    if s.is_empty() { "no words".into() } else { s }
}

impl Proposal {
    /// The `--apply` choices of an ambiguous promotion, one per layer it may go to:
    /// `3=claude`, `3=local`, ….
    pub fn layer_picks(&self) -> Vec<String> {
        self.detail
            .layers
            .iter()
            .map(|l| format!("{}={}", self.n, l.word()))
            .collect()
    }
}

/// An ambiguous promotion's action, naming its own number: `apply as 3=claude,
/// 3=local or 3=team …`.
pub(super) fn ambiguous_action(p: &Proposal) -> String {
    let picks = p.layer_picks();
    let picks = match picks.split_last() {
        Some((last, rest)) if rest.len() > 1 => format!("{} or {last}", rest.join(", ")),
        _ => picks.join(", "),
    };
    format!(
        "no default target: apply as {picks} to append its rule there, then forget {}",
        p.memory
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_and_layer_per_topic() {
        let claude = [Layer::Claude];
        let both = [Layer::Claude, Layer::Agents];
        let fb = Some(MemoryType::Feedback);
        let pr = Some(MemoryType::Project);
        assert_eq!(kind_and_layer(Topic::Editor, fb, false, &claude), None);
        assert_eq!(
            kind_and_layer(Topic::Branches, fb, false, &claude),
            Some((Kind::Ambiguous, None))
        );
        assert_eq!(
            kind_and_layer(Topic::Personal, fb, true, &claude),
            Some((Kind::Promote, Some(Layer::Local)))
        );
        assert_eq!(
            kind_and_layer(Topic::Convention, pr, true, &both),
            Some((Kind::Promote, Some(Layer::Team)))
        );
        assert_eq!(
            kind_and_layer(Topic::Convention, fb, true, &both),
            Some((Kind::Ambiguous, None))
        );
        assert_eq!(
            kind_and_layer(Topic::Convention, fb, false, &[Layer::Agents]),
            Some((Kind::Promote, Some(Layer::Agents)))
        );
    }

    #[test]
    fn layers_end_with_local_then_team() {
        assert_eq!(layers(vec![Layer::Claude], false), [Layer::Claude, Layer::Local]);
        assert_eq!(
            layers(vec![Layer::Claude, Layer::Agents], true),
            [Layer::Claude, Layer::Agents, Layer::Local, Layer::Team]
        );
    }

    #[test]
    fn words_list_stops_at_eight() {
        assert_eq!(words_list(&[]), "no words");
        assert_eq!(words_list(&["a", "b"]), "a, b");
        let nine = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        assert_eq!(words_list(&nine), "a, b, c, d, e, f, g, h, …");
    }
}

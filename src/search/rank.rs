//! BM25 over memory bodies (Robertson and Zaragoza, "The Probabilistic Relevance
//! Framework: BM25 and Beyond", 2009), with the usual k1 = 1.2, b = 0.75 and the
//! non-negative IDF of Lucene: ln(1 + (N − n + 0.5) / (n + 0.5)).
//!
//! A page of arithmetic: the corpus is a few thousand small files read in one
//! pass, so an index-building search engine crate would add weight and nothing else.

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What BM25 knows of the searched corpus: every memory file searched, matching or not.
#[derive(Clone, Debug, Default)]
pub struct Corpus {
    /// Files.
    pub docs: u64,
    /// Body words in all.
    pub words: u64,
    /// Per query word, how many bodies hold it.
    pub df: Vec<u64>,
}

impl Corpus {
    pub fn new(words: usize) -> Corpus {
        Corpus {
            docs: 0,
            words: 0,
            df: vec![0; words],
        }
    }

    /// Count one body: its term frequencies and length.
    pub fn add(&mut self, tf: &[u32], len: u32) {
        self.docs += 1;
        self.words += u64::from(len);
        for (df, n) in self.df.iter_mut().zip(tf) {
            *df += u64::from(*n > 0);
        }
    }

    fn idf(&self, k: usize) -> f64 {
        let n = self.df.get(k).copied().unwrap_or(0) as f64;
        let docs = self.docs as f64;
        // libm's `log`: std's `ln` would link glibc's libm, which every start of
        // memctl then loads for this one function.
        libm::log(1.0 + (docs - n + 0.5) / (n + 0.5))
    }

    /// The BM25 score of a body with term frequencies `tf` and length `len`.
    pub fn score(&self, tf: &[u32], len: u32) -> f64 {
        let avg = if self.docs == 0 {
            1.0
        } else {
            (self.words as f64 / self.docs as f64).max(1.0)
        };
        let norm = K1 * (1.0 - B + B * f64::from(len) / avg);
        tf.iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| {
                let f = f64::from(*n);
                self.idf(k) * f * (K1 + 1.0) / (f + norm)
            })
            // Not `sum`, whose empty sum is -0.0.
            .fold(0.0, |a, b| a + b)
    }
}

/// A score as shown: three decimals, so documents compare across platforms.
pub fn rounded(score: f64) -> f64 {
    (score * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(bodies: &[(&[u32], u32)]) -> Corpus {
        let mut c = Corpus::new(bodies[0].0.len());
        for (tf, len) in bodies {
            c.add(tf, *len);
        }
        c
    }

    #[test]
    fn more_occurrences_score_higher_and_saturate() {
        let c = corpus(&[(&[1], 100), (&[5], 100), (&[50], 100), (&[0], 100)]);
        let (one, five, fifty) = (c.score(&[1], 100), c.score(&[5], 100), c.score(&[50], 100));
        assert!(one < five && five < fifty, "{one} {five} {fifty}");
        // Saturation: tf 50 is far from 10 times tf 5.
        assert!(fifty < 1.5 * five);
        assert!(c.score(&[0], 100).to_bits() == 0.0f64.to_bits(), "+0, not -0");
    }

    #[test]
    fn shorter_bodies_and_rarer_words_score_higher() {
        let c = corpus(&[(&[1, 1], 10), (&[1, 0], 1000), (&[1, 0], 100)]);
        assert!(c.score(&[1, 0], 10) > c.score(&[1, 0], 1000));
        // Word 1 is in one body of three, word 0 in all: word 1 weighs more.
        assert!(c.score(&[0, 1], 100) > c.score(&[1, 0], 100));
        assert!(c.score(&[1, 0], 100) > 0.0, "IDF stays positive");
    }

    #[test]
    fn an_empty_corpus_scores_without_dividing_by_zero() {
        let c = Corpus::new(1);
        assert!(c.score(&[1], 0).is_finite());
        assert_eq!(rounded(1.23456), 1.235);
    }
}

//! Chunk vectors as people read and write them: `per-char`, or byte lengths with runs
//! compressed (`1×97,3` is ninety-seven 1-byte chunks then a 3-byte chunk; `x` may stand for
//! `×`). Reports print them, `--chunks` reads them back, so every printed replay runs as is.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};
use thiserror::Error;

use super::{SplitError, chunk_vector, chunks_at, chunks_from_lengths, cut_points};

/// A chunk vector: how a replay cut its stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkSpec {
    /// One char per chunk, whatever the chars' byte lengths.
    PerChar,
    /// Chunk byte lengths; what they leave over is one last chunk; 0 is an empty chunk.
    Lengths(Vec<usize>),
}

/// A `--chunks` value that is not a chunk vector.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "{text:?} is not a chunk vector: write `per-char` or byte lengths like `1,5,3` or `1x97,3`"
)]
pub struct ChunkSpecError {
    /// The value as given.
    pub text: String,
}

/// Runs of at least this many equal lengths print compressed.
const RUN: usize = 3;

impl ChunkSpec {
    /// The lengths of `text` cut at `cuts`, the last chunk included.
    pub fn of_cuts(text: &str, cuts: &[usize]) -> ChunkSpec {
        ChunkSpec::Lengths(chunk_vector(&chunks_at(text, cuts)))
    }

    /// The cut offsets this vector makes in `text`.
    pub fn cuts(&self, text: &str) -> Result<Vec<usize>, SplitError> {
        match self {
            ChunkSpec::PerChar => Ok(cut_points(text)),
            ChunkSpec::Lengths(lengths) => {
                let chunks = chunks_from_lengths(text, lengths)?;
                let mut at = 0;
                Ok(chunks[..chunks.len().saturating_sub(1)]
                    .iter()
                    .map(|chunk| {
                        at += chunk.len();
                        at
                    })
                    .collect())
            }
        }
    }

    /// `text` cut as this vector says.
    pub fn chunks<'t>(&self, text: &'t str) -> Result<Vec<&'t str>, SplitError> {
        Ok(chunks_at(text, &self.cuts(text)?))
    }

    /// How many chunks this vector makes (for `per-char`, of `text`).
    pub fn len(&self, text: &str) -> usize {
        match self {
            ChunkSpec::PerChar => text.chars().count().max(1),
            ChunkSpec::Lengths(lengths) => lengths.len().max(1),
        }
    }
}

impl fmt::Display for ChunkSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lengths = match self {
            ChunkSpec::PerChar => return f.write_str("per-char"),
            ChunkSpec::Lengths(lengths) => lengths,
        };
        let mut first = true;
        let mut rest = lengths.as_slice();
        while let Some(&length) = rest.first() {
            let run = rest.iter().take_while(|&&l| l == length).count();
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if run >= RUN {
                write!(f, "{length}×{run}")?;
                rest = &rest[run..];
            } else {
                write!(f, "{length}")?;
                rest = &rest[1..];
            }
        }
        Ok(())
    }
}

impl FromStr for ChunkSpec {
    type Err = ChunkSpecError;

    fn from_str(text: &str) -> Result<ChunkSpec, ChunkSpecError> {
        let error = || ChunkSpecError {
            text: text.to_owned(),
        };
        let trimmed = text.trim();
        if trimmed == "per-char" {
            return Ok(ChunkSpec::PerChar);
        }
        let mut lengths = Vec::new();
        for item in trimmed.split(',').map(str::trim) {
            let (length, count) = match item.split_once(['×', 'x']) {
                Some((length, count)) => (length, count.trim().parse().map_err(|_| error())?),
                None => (item, 1usize),
            };
            let length: usize = length.trim().parse().map_err(|_| error())?;
            // A run this long cannot fit any stream that was read into memory.
            if count > 1 << 32 {
                return Err(error());
            }
            lengths.extend(std::iter::repeat_n(length, count));
        }
        Ok(ChunkSpec::Lengths(lengths))
    }
}

impl Serialize for ChunkSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_print_compressed_and_read_back() {
        let mut lengths = vec![1; 97];
        lengths.push(3);
        let spec = ChunkSpec::Lengths(lengths);
        assert_eq!(spec.to_string(), "1×97,3");
        assert_eq!("1×97,3".parse(), Ok(spec.clone()));
        assert_eq!("1x97, 3".parse(), Ok(spec));
        assert_eq!(ChunkSpec::Lengths(vec![2, 2, 5]).to_string(), "2,2,5");
        assert_eq!("per-char".parse(), Ok(ChunkSpec::PerChar));
        assert_eq!(ChunkSpec::PerChar.to_string(), "per-char");
        for bad in ["", "a", "1,,2", "1×", "-1"] {
            assert!(bad.parse::<ChunkSpec>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn cuts_replay_the_vector() {
        assert_eq!(ChunkSpec::PerChar.cuts("aé b"), Ok(vec![1, 3, 4]));
        let spec = ChunkSpec::of_cuts("abcdef", &[1, 3]);
        assert_eq!(spec, ChunkSpec::Lengths(vec![1, 2, 3]));
        assert_eq!(spec.cuts("abcdef"), Ok(vec![1, 3]));
        assert_eq!(spec.chunks("abcdef"), Ok(vec!["a", "bc", "def"]));
        assert!(ChunkSpec::Lengths(vec![9]).cuts("abc").is_err());
    }
}

//! The structure-aware fuzz input (`arbitrary`): a dialect, a stream built from the fragments
//! of [`super::fragments`] mixed with raw bytes, and a chunking. Its byte format is fixed and
//! invertible ([`FuzzInput::encode`]), so corpus cases become seeds and a fuzzer's crash file
//! reads back as a stream and a chunk vector.
//!
//! ```text
//! byte 0          dialect (modulo the number of dialects, in Dialect::ALL order)
//! byte 1          prefill (modulo the number of prompts, in fragments::prefills() order)
//! byte 2          n, the number of cuts (modulo 33)
//! n × 2 bytes     cut selectors, little-endian u16, each picking a char boundary of the
//!                 stream (start and end included) modulo their number
//! the rest        pieces: a byte T below 254 is fragment T; 254 and a byte B is fragment
//!                 254 + B; any other byte (and a T or 254 + B past the fragments) is
//!                 followed by a length byte L and L raw bytes (read as lossy UTF-8)
//! ```

use arbitrary::{Arbitrary, Unstructured};

use super::fragments::{fragments, prefills};
use crate::dialect::Dialect;

/// The largest number of cuts an input carries: enough for any chunking worth shrinking to.
const MAX_CUTS: usize = 32;
/// The piece tag that starts raw text in [`FuzzInput::encode`] (any tag past the fragments does).
const RAW: u8 = u8::MAX;
/// The piece tag of a fragment past the first 254: the next byte counts on from 254.
const WIDE: u8 = u8::MAX - 1;

/// One fuzz case: a stream of a dialect and where to cut it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzInput {
    /// The dialect whose reference parses it.
    pub dialect: Dialect,
    /// The generation prompt the stream continues (`specs/streaming.md` C9), one of
    /// [`prefills`].
    pub prefill: &'static str,
    /// The stream.
    pub stream: String,
    /// Ascending byte offsets at char boundaries, `0` and `stream.len()` allowed; duplicates
    /// make empty chunks.
    pub cuts: Vec<usize>,
}

impl FuzzInput {
    /// Reads an input from fuzzer bytes; every byte string is some input.
    pub fn decode(data: &[u8]) -> FuzzInput {
        let byte = |i: usize| usize::from(data.get(i).copied().unwrap_or(0));
        let dialect = Dialect::ALL[byte(0) % Dialect::ALL.len()];
        let prefill = prefills()[byte(1) % prefills().len()];
        let cut_count = byte(2) % (MAX_CUTS + 1);
        let selector_end = (3 + 2 * cut_count).min(data.len().max(3));
        let selectors: Vec<usize> = data
            .get(3..selector_end)
            .unwrap_or_default()
            .chunks(2)
            .map(|pair| usize::from(u16::from_le_bytes([pair[0], *pair.get(1).unwrap_or(&0)])))
            .collect();
        let stream = stream_of_pieces(data.get(selector_end..).unwrap_or_default());
        let boundaries = boundaries(&stream);
        let mut cuts: Vec<usize> = selectors
            .into_iter()
            .map(|s| boundaries[s % boundaries.len()])
            .collect();
        cuts.sort_unstable();
        FuzzInput {
            dialect,
            prefill,
            stream,
            cuts,
        }
    }

    /// The bytes that [`decode`](Self::decode) reads back as this input (cuts past
    /// `MAX_CUTS` or off char boundaries are dropped).
    pub fn encode(&self) -> Vec<u8> {
        let boundaries = boundaries(&self.stream);
        let selectors: Vec<u16> = self
            .cuts
            .iter()
            .filter_map(|cut| boundaries.binary_search(cut).ok())
            .filter_map(|index| u16::try_from(index).ok())
            .take(MAX_CUTS)
            .collect();
        let dialect = Dialect::ALL
            .iter()
            .position(|&d| d == self.dialect)
            .unwrap_or(0);
        let prefill = prefills()
            .iter()
            .position(|&p| p == self.prefill)
            .unwrap_or(0);
        let mut bytes = vec![dialect as u8, prefill as u8, selectors.len() as u8];
        for selector in selectors {
            bytes.extend(selector.to_le_bytes());
        }
        let mut rest = self.stream.as_str();
        while !rest.is_empty() {
            // Raw pieces end at char boundaries, so each reads back as the same text.
            let mut end = rest.len().min(usize::from(u8::MAX));
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            bytes.extend([RAW, end as u8]);
            bytes.extend(&rest.as_bytes()[..end]);
            rest = &rest[end..];
        }
        bytes
    }
}

impl<'a> Arbitrary<'a> for FuzzInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<FuzzInput> {
        let len = u.len();
        Ok(FuzzInput::decode(u.bytes(len)?))
    }

    fn arbitrary_take_rest(u: Unstructured<'a>) -> arbitrary::Result<FuzzInput> {
        Ok(FuzzInput::decode(u.take_rest()))
    }
}

/// The stream the piece bytes describe.
pub fn stream_of_pieces(mut pieces: &[u8]) -> String {
    let mut stream = String::new();
    while let Some((&tag, rest)) = pieces.split_first() {
        pieces = rest;
        let index = match (tag, pieces.split_first()) {
            (WIDE, Some((&next, rest))) if fragments().len() > usize::from(WIDE) => {
                pieces = rest;
                usize::from(WIDE) + usize::from(next)
            }
            (RAW | WIDE, _) => usize::MAX,
            _ => usize::from(tag),
        };
        match fragments().get(index) {
            Some(fragment) => stream.push_str(fragment),
            None => {
                let (&len, rest) = pieces.split_first().unwrap_or((&0, &[]));
                let (raw, rest) = rest.split_at(usize::from(len).min(rest.len()));
                stream.push_str(&String::from_utf8_lossy(raw));
                pieces = rest;
            }
        }
    }
    stream
}

/// Every char boundary of `text`, `0` and `text.len()` included.
fn boundaries(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_inputs_decode_to_themselves() {
        let input = FuzzInput {
            dialect: Dialect::Hermes,
            prefill: prefills()[1],
            stream: format!("<tool_call>{}é😀</tool_call>", "x".repeat(300)),
            cuts: vec![0, 3, 3, 311, 313],
        };
        assert_eq!(FuzzInput::decode(&input.encode()), input);
    }

    #[test]
    fn any_bytes_are_an_input() {
        let input = FuzzInput::decode(&[1, 0, 2, 9, 0, 200, 1, 0, 255, 3, b'a', 0xff, b'b', 7]);
        assert_eq!(input.dialect, Dialect::ALL[1]);
        assert_eq!(
            input.stream,
            format!("{}a\u{fffd}b{}", fragments()[0], fragments()[7])
        );
        assert_eq!(input.cuts.len(), 2);
        assert!(input.cuts.iter().all(|&c| input.stream.is_char_boundary(c)));
        assert_eq!(FuzzInput::decode(&[]).stream, "");
    }
}

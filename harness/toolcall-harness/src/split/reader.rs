//! Fixed-size chunks read from a byte source as they are needed, so that a stream of any length
//! is parsed in memory bounded by one chunk and one read block (`tch parse --chunk-size`). The
//! chunks are exactly those [`fixed_size_chunks`](super::fixed_size_chunks) cuts from the whole
//! text: every `size` bytes after the previous cut, moved forward to a `char` boundary.

use std::io::{self, Read};

use thiserror::Error;

/// Bytes asked of the source per read.
const READ_BLOCK: usize = 64 * 1024;

/// Why the next chunk could not be read.
#[derive(Debug, Error)]
pub enum ChunkReadError {
    /// The source failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The stream is not UTF-8.
    #[error("not UTF-8 (invalid byte at offset {0})")]
    NotUtf8(usize),
}

/// The chunks of a byte source, `size` bytes each (moved forward to a `char` boundary), the
/// last one what is left.
#[derive(Debug)]
pub struct SizedChunks<R> {
    source: R,
    size: usize,
    /// Read but not yet handed out: `buffer[start..]`.
    buffer: Vec<u8>,
    start: usize,
    /// Stream offset of `buffer[start]`.
    offset: usize,
    ended: bool,
    handed_out: bool,
}

impl<R: Read> SizedChunks<R> {
    /// Chunks of `size` bytes (at least 1) of `source`.
    pub fn new(source: R, size: usize) -> Result<SizedChunks<R>, super::SplitError> {
        if size == 0 {
            return Err(super::SplitError::ZeroSize);
        }
        Ok(SizedChunks {
            source,
            size,
            buffer: Vec::new(),
            start: 0,
            offset: 0,
            ended: false,
            handed_out: false,
        })
    }

    /// The next chunk; `None` after the last. An empty stream is one empty chunk, as
    /// `fixed_size_chunks` has it.
    pub fn next_chunk(&mut self) -> Result<Option<String>, ChunkReadError> {
        // A cut `size` bytes on needs up to 3 more bytes to find the next char boundary.
        while !self.ended && self.buffer.len() - self.start <= self.size + 3 {
            self.fill()?;
        }
        let pending = &self.buffer[self.start..];
        if pending.is_empty() && (self.handed_out || !self.ended) {
            return Ok(None);
        }
        let mut cut = self.size.min(pending.len());
        while cut < pending.len() && is_continuation(pending[cut]) {
            cut += 1;
        }
        let chunk = std::str::from_utf8(&pending[..cut])
            .map_err(|e| ChunkReadError::NotUtf8(self.offset + e.valid_up_to()))?
            .to_owned();
        self.start += cut;
        self.offset += cut;
        self.handed_out = true;
        Ok(Some(chunk))
    }

    /// Reads one more block, first dropping what was handed out when that is most of it, so
    /// each byte is moved at most once per block: linear in the stream, whatever `size`.
    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        let old = self.buffer.len();
        self.buffer.resize(old + READ_BLOCK, 0);
        let read = loop {
            match self.source.read(&mut self.buffer[old..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let read = read.inspect_err(|_| self.buffer.truncate(old))?;
        self.buffer.truncate(old + read);
        self.ended = read == 0;
        Ok(())
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::fixed_size_chunks;

    /// A source that hands out at most `step` bytes per read, to put reads everywhere.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.bytes.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn all(text: &[u8], size: usize, step: usize) -> Result<Vec<String>, ChunkReadError> {
        let mut chunks = SizedChunks::new(Trickle { bytes: text, step }, size).expect("size");
        let mut out = Vec::new();
        while let Some(chunk) = chunks.next_chunk()? {
            out.push(chunk);
        }
        Ok(out)
    }

    #[test]
    fn the_same_chunks_as_cutting_the_whole_text() {
        let texts = [
            "",
            "a",
            "plain ascii prose",
            "é日本😀x<tool_call>{\"a\":\"ü\"}</tool_call>😀😀",
        ];
        for text in texts {
            for size in [1, 2, 3, 4, 5, 7, 64] {
                let expected: Vec<&str> = fixed_size_chunks(text, size).expect("size");
                for step in [1, 2, 3, 5, 100_000] {
                    let got = all(text.as_bytes(), size, step).expect("UTF-8");
                    assert_eq!(got, expected, "{text:?} size {size} step {step}");
                }
            }
        }
    }

    #[test]
    fn a_long_stream_crosses_many_read_blocks() {
        let text = "ab😀".repeat(READ_BLOCK / 3);
        let got = all(text.as_bytes(), 3, READ_BLOCK).expect("UTF-8");
        assert_eq!(got.concat(), text);
        assert_eq!(got, fixed_size_chunks(&text, 3).expect("size"));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_named_by_offset() {
        let error = all(b"abc\xffdef", 2, 1).expect_err("not UTF-8");
        assert!(matches!(error, ChunkReadError::NotUtf8(3)), "{error}");
        assert!(SizedChunks::new(&b"x"[..], 0).is_err());
    }
}

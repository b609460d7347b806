"""Which Snowball stemmer a word is stemmed by: a chunk's language, told from its text.

A chunk is stemmed as the language :func:`chunk_language` detects in its own body (not
per file: documents mix languages), by any stemmer PyStemmer ships for it (Arabic, Danish,
Dutch, English, Finnish, French, German, Greek, Hindi, Hungarian, Indonesian, Italian,
Nepali, Norwegian, Portuguese, Romanian, Russian, Spanish, Swedish, Tamil, Turkish, …,
whatever :func:`Stemmer.algorithms` lists). A word that language's stemmer cannot read (a
Latin word in Russian or Chinese text, a Cyrillic one in German) is stemmed by its
script's default (:data:`_SCRIPT_DEFAULT`: Latin English, Cyrillic Russian, as before
this module), so English words and identifiers inside other text keep the treatment they
always had; a chunk in a language with no stemmer (Vietnamese, Chinese, Polish on an
older PyStemmer) gets the script defaults only.

Language identification: py3langid (langid.py's model for 97 languages inside its 4.5 MB
installed wheel: nothing is downloaded, where the fastText-based detectors fetch their
model at first use). Measured here on XQuAD's German passages: 0.75 ms a passage of 600
characters on a busy 2-core machine, 1.2 s to load the model once per process (on the
first chunk written, never on a query). It is asked only to choose
among :data:`_CANDIDATES` (the stemmed languages and the widely written ones without a
stemmer): left to all 97, a German chunk of one sentence often came out Luxembourgish or
Frisian.

A query is too short to tell its language (py3langid ranks ``Lieferketten`` Frisian,
Luxembourgish, Norwegian), so a query word is stemmed under every language the index
holds whose stemmer reads its script, plus its script's default, as alternatives
(:func:`stems`): an index of German and English chunks matches ``Lieferketten`` by the
German stem and by the English one.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache

__all__ = ["chunk_language", "release_detector", "script_of", "stem", "stemmable"]

#: ISO 639-1 code (py3langid's label) -> PyStemmer algorithm.
_STEMMERS = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech",
    "da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian",
    "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nn": "norwegian",
    "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sr": "serbian", "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil",
    "tr": "turkish",
}  # fmt: skip
#: Widely written languages without a stemmer: detected, so they are not taken for a
#: stemmed one (their words then get the script's default, as before).
_UNSTEMMED = [
    "vi",
    "zh",
    "ja",
    "ko",
    "th",
    "lo",
    "km",
    "my",
    "uk",
    "bg",
    "be",
    "mk",
    "he",
    "ur",
    "bn",
    "pa",
    "gu",
    "te",
    "kn",
    "ml",
    "mr",
    "si",
    "sk",
    "sl",
    "hr",
    "bs",
    "lv",
    "is",
    "ms",
    "tl",
    "sw",
    "ka",
    "az",
    "kk",
    "uz",
    "mn",
    "sq",
    "af",
    "cy",
]
_CANDIDATES = sorted({*_STEMMERS, *_UNSTEMMED})
#: The scripts each stemmer reads (the first word of a letter's Unicode name).
_READS = {
    "russian": {"CYRILLIC"}, "serbian": {"CYRILLIC", "LATIN"}, "greek": {"GREEK"},
    "arabic": {"ARABIC"}, "persian": {"ARABIC"}, "hindi": {"DEVANAGARI"},
    "nepali": {"DEVANAGARI"}, "tamil": {"TAMIL"}, "armenian": {"ARMENIAN"},
}  # fmt: skip
_LATIN = frozenset({"LATIN"})
#: The stemmer of a word whose chunk's language cannot read it (before this module:
#: Latin English, Cyrillic Russian, every other script as written).
_SCRIPT_DEFAULT = {
    "LATIN": "english", "CYRILLIC": "russian", "GREEK": "greek", "ARABIC": "arabic",
    "DEVANAGARI": "hindi", "TAMIL": "tamil", "ARMENIAN": "armenian",
}  # fmt: skip
#: Characters of a chunk's body the language is told from (enough: ~100 words).
_SAMPLE = 600
#: Below this probability a chunk gets its scripts' defaults: a line or two is often
#: guessed wrong ("Alpha invoices." came out Romanian at 0.11, "Setup > Stock"
#: Indonesian at 0.11), where a sentence is told at 0.8-1.0.
_SURE = 0.5

_local = threading.local()


@lru_cache(maxsize=1)
def _available() -> frozenset[str]:
    import Stemmer

    return frozenset(Stemmer.algorithms())


def _stemmer(algorithm: str):
    # PyStemmer objects are not thread-safe; one per thread and language is cheap.
    held = getattr(_local, "stemmers", None)
    if held is None:
        held = _local.stemmers = {}
    stemmer = held.get(algorithm)
    if stemmer is None:
        import Stemmer

        stemmer = held[algorithm] = Stemmer.Stemmer(algorithm)
    return stemmer


_detector_lock = threading.Lock()


def _load_detector():
    """The language detector, loaded once per process by the first chunk written (0.6-1.2 s
    of CPU and ~80 MB, so a server that never writes never loads it). A second thread that
    writes meanwhile (a sync and an ``ingest_file``) waits for that load instead of
    making its own (``lru_cache`` alone lets both load)."""
    with _detector_lock:
        return _loaded_detector()


@lru_cache(maxsize=1)
def _loaded_detector():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    model.set_languages(_CANDIDATES)
    return model


def release_detector() -> None:
    """Let go of the detector (~75-85 MB resident: its tokenizer automaton and weights).
    A write that will not be followed by another soon (a CLI sync, an ingest) drops it
    before its last maintenance, which is the process's peak: a SciFact sync of 1,000
    files peaked at 669 MB there, the detector in it. The next write loads it again
    (0.5-1.2 s of CPU, once)."""
    with _detector_lock:
        _loaded_detector.cache_clear()


def _identify(text: str) -> str:
    language, probability = _load_detector().classify(text)
    return str(language) if probability >= _SURE else ""


def chunk_language(text: str) -> str:
    """The PyStemmer algorithm for ``text`` (a chunk's body), '' when its language has
    none (or the text has no letters of a script a stemmer reads)."""
    letters = [ch for ch in text[: _SAMPLE * 2] if ch.isalpha()]
    if not any(script_of(ch) in _SCRIPT_DEFAULT for ch in letters[:_SAMPLE]):
        return ""
    algorithm = _STEMMERS.get(_identify(text[:_SAMPLE]), "")
    return algorithm if algorithm in _available() else ""


@lru_cache(maxsize=4096)
def script_of(ch: str) -> str:
    """The script of one letter: the first word of its Unicode name (``LATIN``)."""
    return unicodedata.name(ch, "").split(" ", 1)[0]


def _reads(algorithm: str, script: str) -> bool:
    return script in _READS.get(algorithm, _LATIN)


@lru_cache(maxsize=400_000)
def stem(word: str, algorithm: str) -> str:
    """``word`` (case-folded letters) stemmed as ``algorithm`` when that stemmer reads its
    script, else by the script's default stemmer, else as written."""
    script = script_of(word[0])
    if not (algorithm and _reads(algorithm, script)):
        algorithm = _SCRIPT_DEFAULT.get(script, "")
    return _stemmer(algorithm).stemWord(word) if algorithm else word


def stemmable(word: str) -> bool:
    """Whether some stemmer reads ``word``'s script (else it is always kept as written)."""
    return script_of(word[0]) in _SCRIPT_DEFAULT

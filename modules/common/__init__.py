"""Support modules the lessons share, set apart so that `ls modules/` shows the course.

    checks     input checks and encodings (sequence_of, whole_number, canonical_json, sha256_hex)
    units      counting units: characters, UTF-8 bytes, lab tokens
    facets     the facet model of a question's declared sub-questions (lessons 02 and 10)
    vectors    one validated vector type and one cosine
    runs       one catalogue run in the keys the agreement test compares (08, 12, 13)
    pipeline   named, versioned stages and the run record (the catalogue's one pipeline)
    ann        the approximate (inverted-file) index beside exact search (lessons 12, 13)
"""

; Simple-cubic lattice of dielectric spheres: the small MPB input of the FFTW-MPI application check
; (about a second on one rank). Parameters are define-param so the check script can perturb one of
; them (eps=...) on the command line to prove that a changed result is detected.
(define-param eps 12)
(define-param r 0.3)
(define-param res 8)
(set! geometry-lattice (make lattice (size 1 1 1)))
(set! geometry (list (make sphere (center 0 0 0) (radius r)
                           (material (make dielectric (epsilon eps))))))
; Gamma -> X -> M -> R with one interpolated point per leg.
(set! k-points (interpolate 1 (list (vector3 0 0 0) (vector3 0.5 0 0)
                                    (vector3 0.5 0.5 0) (vector3 0.5 0.5 0.5))))
(set! resolution res)
(set! num-bands 6)
(set! tolerance 1e-12)
(run)

; Diamond lattice of dielectric spheres (fcc lattice, two-sphere basis): the larger MPB input of the
; FFTW-MPI application check. The non-orthogonal lattice exercises a 3-D transform whose first
; dimension is split across ranks differently from the cubic case. define-param as in sc-spheres.ctl.
(define-param eps 11.8)
(define-param r 0.25)
(define-param res 12)
(set! geometry-lattice (make lattice
                         (basis-size (sqrt 0.5) (sqrt 0.5) (sqrt 0.5))
                         (basis1 0 1 1) (basis2 1 0 1) (basis3 1 1 0)))
(set! geometry (list (make sphere (center 0.125 0.125 0.125) (radius r)
                           (material (make dielectric (epsilon eps))))
                     (make sphere (center -0.125 -0.125 -0.125) (radius r)
                           (material (make dielectric (epsilon eps))))))
; X, U, L, Gamma, X, W, K in the reciprocal-lattice basis.
(set! k-points (interpolate 1 (list (vector3 0 0.5 0.5) (vector3 0 0.625 0.375)
                                    (vector3 0.5 0.5 0.5) (vector3 0 0 0)
                                    (vector3 0 0.5 0.5) (vector3 0.25 0.75 0.5))))
(set! resolution res)
(set! num-bands 8)
(set! tolerance 1e-12)
(run)
